/**
 * The window between checking a path and opening it, which a real file system opens only by chance: here the file
 * system's answers are replaced one at a time, as if the path had been swapped in that moment (a link, a file for a
 * directory, a removal), or failed in a way no root-run test can cause (permission denied, a thrown non-error).
 */
import { Executor, FunctionCall, Registry } from "@agentfx/core"
import { Files } from "@agentfx/tools"
import { NodeFileSystem } from "@effect/platform-node"
import { afterEach, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { constants, type Stats } from "node:fs"
import * as NodeFs from "node:fs"
import type * as NodeFsPromises from "node:fs/promises"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { afterAll, vi } from "vitest"
import { kernelName, type OpenFailure, openInside } from "../src/internal/openInside.js"

type Promises = typeof NodeFsPromises

/** Replacements for one test: each gets the real function and its arguments. */
const hooks: {
  open?: (real: Promises["open"], path: string, flags: number) => Promise<NodeFsPromises.FileHandle>
  lstat?: (real: Promises["lstat"], path: string) => Promise<Stats>
  readlink?: (real: Promises["readlink"], path: string) => Promise<string>
  readdir?: (real: Promises["readdir"], path: string) => Promise<Array<string>>
} = {}

vi.mock("node:fs/promises", async (importOriginal) => {
  const real = await importOriginal<Promises>()
  return {
    ...real,
    open: (path: string, flags: number) => (hooks.open === undefined ? real.open(path, flags) : hooks.open(real.open, path, flags)),
    lstat: (path: string) => (hooks.lstat === undefined ? real.lstat(path) : hooks.lstat(real.lstat, path)),
    readlink: (path: string) => (hooks.readlink === undefined ? real.readlink(path) : hooks.readlink(real.readlink, path)),
    readdir: (path: string) => (hooks.readdir === undefined ? real.readdir(path) : hooks.readdir(real.readdir, path))
  }
})

/** The handles opened, to see that a refusal closed them. */
const opened: Array<NodeFsPromises.FileHandle> = []

afterEach(() => {
  delete hooks.open
  delete hooks.lstat
  delete hooks.readlink
  delete hooks.readdir
  opened.length = 0
})

const base = NodeFs.realpathSync(NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "agentfx-race-")))
const root = NodePath.join(base, "root")
NodeFs.mkdirSync(NodePath.join(root, "sub"), { recursive: true })
NodeFs.writeFileSync(NodePath.join(root, "a.txt"), "hello")
NodeFs.writeFileSync(NodePath.join(root, "b.txt"), "other")
afterAll(() => NodeFs.rmSync(base, { recursive: true, force: true }))

const file = NodePath.join(root, "a.txt")
const directory = NodePath.join(root, "sub")
const noKernelName = () => Promise.resolve(undefined)

/** An error as Node's file system gives one. */
const fsError = (code: string) => Object.assign(new Error(`${code}: it failed, open '${file}'`), { code })

/** `stats` with some fields changed, its methods kept. */
const altered = (stats: Stats, fields: Partial<Record<"dev" | "ino" | "mode", number>>): Stats => Object.assign(Object.create(Object.getPrototypeOf(stats) as object) as Stats, stats, fields)

const recordOpens = () => {
  hooks.open = async (real, path, flags) => {
    const handle = await real(path, flags)
    opened.push(handle)
    return handle
  }
}
const allClosed = () => opened.every((handle) => handle.fd === -1)

describe("the open after the check", () => {
  it("is read-only, follows no link, never blocks nor takes a terminal, and insists on a directory when it wants one", async () => {
    const flags: Array<number> = []
    hooks.open = (real, path, given) => (flags.push(given), real(path, given))
    for (const [path, kind] of [[file, "file"], [directory, "directory"]] as const) {
      const result = await openInside(root, path, kind)
      if ("handle" in result) await result.handle.close()
    }
    const always = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY
    expect(flags).toEqual([always, always | constants.O_DIRECTORY])
  })

  it("a link swapped in for the last component is refused as escaping", async () => {
    hooks.open = () => Promise.reject(fsError("ELOOP"))
    expect(await openInside(root, file, "file")).toEqual({ _tag: "Escaped" })
  })

  it("a path removed meanwhile is missing", async () => {
    hooks.open = () => Promise.reject(fsError("ENOENT"))
    expect(await openInside(root, file, "file")).toEqual({ _tag: "Missing" })
  })

  it("a directory on the way swapped for a file says the path changed", async () => {
    hooks.open = () => Promise.reject(fsError("ENOTDIR"))
    expect(await openInside(root, file, "file")).toEqual({ _tag: "Failed", code: "ENOTDIR", message: "it changed while being opened" })
  })

  it("a file where the directory was checked fails the directory open, which never opens a file", async () => {
    hooks.lstat = (real) => real(directory)
    expect(await openInside(root, file, "directory")).toEqual({ _tag: "Failed", code: "ENOTDIR", message: "it changed while being opened" })
  })

  it("permission denied is said so, without the path; another failure with its code and message", async () => {
    for (const code of ["EACCES", "EPERM"]) {
      hooks.open = () => Promise.reject(fsError(code))
      expect(await openInside(root, file, "file")).toEqual({ _tag: "Failed", code, message: "permission denied" })
    }
    hooks.open = () => Promise.reject(fsError("EMFILE"))
    expect(await openInside(root, file, "file")).toEqual({ _tag: "Failed", code: "EMFILE", message: `EMFILE: it failed, open '${file}'` })
    hooks.lstat = () => Promise.reject(fsError("EACCES"))
    expect(await openInside(root, file, "file")).toEqual({ _tag: "Failed", code: "EACCES", message: "permission denied" })
  })

  it("what is thrown without a code is told as it is", async () => {
    const thrown: Array<[unknown, OpenFailure]> = [
      ["a string", { _tag: "Failed", code: "EUNKNOWN", message: "a string" }],
      [null, { _tag: "Failed", code: "EUNKNOWN", message: "null" }],
      [new Error("no code"), { _tag: "Failed", code: "EUNKNOWN", message: "no code" }],
      [{ code: 7 }, { _tag: "Failed", code: "7", message: "[object Object]" }]
    ]
    for (const [error, failure] of thrown) {
      hooks.open = () => Promise.reject(error)
      expect(await openInside(root, file, "file")).toEqual(failure)
    }
  })
})

describe("the opened descriptor", () => {
  it("of another type than was checked is refused with what it is, and closed", async () => {
    recordOpens()
    hooks.lstat = (real) => real(file)
    const result = await openInside(root, directory, "file")
    expect(result).toMatchObject({ _tag: "WrongType" })
    expect((result as { actual: Stats }).actual.isDirectory()).toBe(true)
    expect(allClosed()).toBe(true)
  })

  it("whose stat fails is a failure with its code, and closed", async () => {
    hooks.open = async (real, path, flags) => {
      const handle = await real(path, flags)
      opened.push(handle)
      handle.stat = (() => Promise.reject(fsError("EIO"))) as typeof handle.stat
      return handle
    }
    expect(await openInside(root, file, "file")).toEqual({ _tag: "Failed", code: "EIO", message: `EIO: it failed, open '${file}'` })
    expect(allClosed()).toBe(true)
  })

  it("without a kernel name: another object than the one checked, or than the path names now, is refused and closed", async () => {
    recordOpens()
    const other = NodeFs.lstatSync(NodePath.join(root, "b.txt"))
    const real = NodeFs.lstatSync(file)
    // The first lstat is the check, the second the look after the open.
    for (const [check, after] of [[other, real], [real, other], [altered(real, { dev: real.dev + 1 }), real], [real, altered(real, { ino: real.ino + 1 })]]) {
      let calls = 0
      hooks.lstat = () => Promise.resolve(calls++ === 0 ? check! : after!)
      expect(await openInside(root, file, "file", noKernelName)).toEqual({ _tag: "Escaped" })
    }
    expect(opened).toHaveLength(4)
    expect(allClosed()).toBe(true)
    delete hooks.lstat
    const kept = await openInside(root, file, "file", noKernelName)
    expect("handle" in kept && (await kept.handle.readFile("utf8"))).toBe("hello")
    if ("handle" in kept) await kept.handle.close()
  })
})

describe("kernelName", () => {
  it("a descriptor the kernel names other than by a path (a socket, a pipe) has no name", async () => {
    hooks.readlink = () => Promise.resolve("socket:[4242]")
    expect(await kernelName(3)).toBeUndefined()
    hooks.readlink = () => Promise.resolve("/a/path")
    expect(await kernelName(3)).toBe("/a/path")
  })
})

describe("read_file and list_dir in that window", () => {
  const registry = Registry.unsafeMake(...Files.tools({ root, maxBytes: 1024 }))
  /** What the tool refused with, as its typed error. */
  const refusal = (name: "read_file" | "list_dir", path: string) =>
    Effect.map(Effect.flip(Executor.execute(registry, FunctionCall.make({ id: "c", name, args: { path } }))), (error) => (error as { cause: unknown }).cause).pipe(
      Effect.provide(NodeFileSystem.layer)
    )

  it.effect("a link swapped in is refused, a removal is not found, anything else is an access failure naming its reason", () =>
    Effect.gen(function* () {
      for (const [name, path] of [["read_file", "a.txt"], ["list_dir", "sub"]] as const) {
        hooks.open = () => Promise.reject(fsError("ELOOP"))
        expect(yield* refusal(name, path)).toMatchObject({ _tag: "PathRefused", path, reason: "it leads outside the root through a symbolic link" })
        hooks.open = () => Promise.reject(fsError("ENOENT"))
        expect(yield* refusal(name, path)).toMatchObject({ _tag: "FileNotFound", path })
        hooks.open = () => Promise.reject(fsError("EACCES"))
        expect(yield* refusal(name, path)).toMatchObject({ _tag: "FileAccessFailed", path, reason: "permission denied" })
      }
    }))

  it.effect("a read or a listing that fails midway is an access failure with the file system's message, the file closed", () =>
    Effect.gen(function* () {
      hooks.open = async (real, path, flags) => {
        const handle = await real(path, flags)
        opened.push(handle)
        handle.read = (() => Promise.reject(fsError("EIO"))) as unknown as typeof handle.read
        return handle
      }
      expect(yield* refusal("read_file", "a.txt")).toMatchObject({ _tag: "FileAccessFailed", path: "a.txt", reason: `EIO: it failed, open '${file}'` })
      expect(allClosed()).toBe(true)
      delete hooks.open
      hooks.readdir = () => Promise.reject("not an error")
      expect(yield* refusal("list_dir", "sub")).toMatchObject({ _tag: "FileAccessFailed", path: "sub", reason: "not an error" })
    }))
})

describe("read_file of what is neither a file nor a directory", () => {
  it.effect("is refused naming what it is, before it is opened", () =>
    Effect.gen(function* () {
      const registry = Registry.unsafeMake(Files.readFile({ root, maxBytes: 1024 }))
      const real = NodeFs.lstatSync(file)
      const kinds = [
        [constants.S_IFSOCK, "socket file"],
        [constants.S_IFCHR, "character device file"],
        [constants.S_IFBLK, "block device file"],
        [0, "unknown file"]
      ] as const
      for (const [type, actual] of kinds) {
        hooks.lstat = () => Promise.resolve(altered(real, { mode: type | 0o644 }))
        recordOpens()
        const error = yield* Effect.flip(Executor.execute(registry, FunctionCall.make({ id: "c", name: "read_file", args: { path: "a.txt" } })))
        expect(error).toMatchObject({ cause: { _tag: "WrongFileType", path: "a.txt", expected: "file", actual } })
      }
      expect(opened).toEqual([])
    }).pipe(Effect.provide(NodeFileSystem.layer)))
})
