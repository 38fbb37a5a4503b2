import { execFileSync } from "node:child_process"
import { NodeFileSystem } from "@effect/platform-node"
import * as FileSystem from "@effect/platform/FileSystem"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as NodePath from "node:path"
import { Executor, FunctionCall, Registry } from "@agentfx/core"
import { Files } from "@agentfx/tools"

const maxBytes = 64

/** A temp dir holding `root/` (with links inside and out) and `outside/`. */
const fixture = Effect.gen(function* () {
  const fs = yield* FileSystem.FileSystem
  const base = yield* fs.makeTempDirectoryScoped({ prefix: "agentfx-files-" })
  const root = NodePath.join(base, "root")
  const outside = NodePath.join(base, "outside")
  yield* fs.makeDirectory(NodePath.join(root, "sub"), { recursive: true })
  yield* fs.makeDirectory(outside)
  yield* fs.writeFileString(NodePath.join(outside, "secret.txt"), "top secret")
  yield* fs.writeFileString(NodePath.join(root, "a.txt"), "hello\n")
  yield* fs.writeFileString(NodePath.join(root, "sub", "b.txt"), "bee")
  yield* fs.writeFileString(NodePath.join(root, "exact.txt"), "x".repeat(maxBytes))
  yield* fs.writeFileString(NodePath.join(root, "big.txt"), "x".repeat(maxBytes + 1))
  yield* fs.writeFile(NodePath.join(root, "binary.dat"), new Uint8Array([0x68, 0xff, 0xfe, 0x00]))
  yield* fs.symlink(NodePath.join(root, "sub", "b.txt"), NodePath.join(root, "link-in"))
  yield* fs.symlink("../outside/secret.txt", NodePath.join(root, "link-out"))
  yield* fs.symlink(outside, NodePath.join(root, "dir-out"))
  yield* fs.symlink("nowhere.txt", NodePath.join(root, "dangling"))
  return { base, root, outside }
})

const setup = (options: Partial<Files.Options> = {}) =>
  Effect.map(fixture, (dirs) => {
    const registry = Registry.unsafeMake(...Files.tools({ root: dirs.root, maxBytes, ...options }))
    let n = 0
    const run = (name: "read_file" | "list_dir", args: Record<string, unknown>) =>
      Executor.execute(registry, FunctionCall.make({ id: `c${++n}`, name, args }))
    const refusal = (name: "read_file" | "list_dir", args: Record<string, unknown>) =>
      Effect.map(Effect.flip(run(name, args)), (error) => {
        if (error._tag !== "ExecutionFailed") throw new Error(`expected ExecutionFailed, got ${error._tag}`)
        return error.cause as { readonly _tag: string; readonly [key: string]: unknown }
      })
    return { ...dirs, run, refusal }
  })

describe("read_file", () => {
  it.scoped("reads a UTF-8 file under the root, also through a link that stays inside", () =>
    Effect.gen(function* () {
      const { run } = yield* setup()
      expect(yield* run("read_file", { path: "a.txt" })).toStrictEqual({ path: "a.txt", size: 6, content: "hello\n" })
      expect(yield* run("read_file", { path: "sub/b.txt" })).toStrictEqual({ path: "sub/b.txt", size: 3, content: "bee" })
      expect(yield* run("read_file", { path: "./sub//b.txt" })).toMatchObject({ content: "bee" })
      expect(yield* run("read_file", { path: "link-in" })).toMatchObject({ content: "bee" })
      expect(yield* run("read_file", { path: "exact.txt" })).toMatchObject({ size: maxBytes })
    }).pipe(Effect.provide(NodeFileSystem.layer))
  )

  it.scoped("refuses absolute paths", () =>
    Effect.gen(function* () {
      const { refusal, root } = yield* setup()
      for (const path of ["/etc/passwd", NodePath.join(root, "a.txt"), "C:\\Windows\\win.ini", "\\\\server\\share"]) {
        const error = yield* refusal("read_file", { path })
        expect(error).toMatchObject({ _tag: "PathRefused", path, reason: "absolute paths are not allowed; give a path relative to the root" })
      }
    }).pipe(Effect.provide(NodeFileSystem.layer))
  )

  it.scoped("refuses any .. segment, even one that would stay inside", () =>
    Effect.gen(function* () {
      const { refusal } = yield* setup()
      for (const path of ["../outside/secret.txt", "sub/../a.txt", "..", "sub\\..\\..\\outside"]) {
        expect(yield* refusal("read_file", { path })).toMatchObject({ _tag: "PathRefused", reason: `".." segments are not allowed` })
      }
    }).pipe(Effect.provide(NodeFileSystem.layer))
  )

  it.scoped("refuses symbolic links that lead outside the root", () =>
    Effect.gen(function* () {
      const { refusal } = yield* setup()
      for (const path of ["link-out", "dir-out/secret.txt"]) {
        expect(yield* refusal("read_file", { path })).toMatchObject({ _tag: "PathRefused", path, reason: "it leads outside the root through a symbolic link" })
      }
    }).pipe(Effect.provide(NodeFileSystem.layer))
  )

  it.scoped("refuses a file over the size limit", () =>
    Effect.gen(function* () {
      const { refusal } = yield* setup()
      const error = yield* refusal("read_file", { path: "big.txt" })
      expect(error).toMatchObject({ _tag: "FileTooLarge", path: "big.txt", size: maxBytes + 1, limit: maxBytes })
    }).pipe(Effect.provide(NodeFileSystem.layer))
  )

  it.scoped("refuses a file that is not UTF-8 text", () =>
    Effect.gen(function* () {
      const { refusal } = yield* setup()
      expect(yield* refusal("read_file", { path: "binary.dat" })).toMatchObject({ _tag: "NotText", path: "binary.dat" })
    }).pipe(Effect.provide(NodeFileSystem.layer))
  )

  it.scoped("refuses a directory, a missing file, a dangling link, an empty path and a NUL character", () =>
    Effect.gen(function* () {
      const { refusal } = yield* setup()
      expect(yield* refusal("read_file", { path: "sub" })).toMatchObject({ _tag: "WrongFileType", expected: "file", actual: "directory" })
      expect(yield* refusal("read_file", { path: "missing.txt" })).toMatchObject({ _tag: "FileNotFound", path: "missing.txt" })
      expect(yield* refusal("read_file", { path: "dangling" })).toMatchObject({ _tag: "FileNotFound", path: "dangling" })
      expect(yield* refusal("read_file", { path: " " })).toMatchObject({ _tag: "PathRefused", reason: "the path is empty" })
      expect(yield* refusal("read_file", { path: "a.txt\u0000.png" })).toMatchObject({ _tag: "PathRefused", reason: "it contains a NUL character" })
    }).pipe(Effect.provide(NodeFileSystem.layer))
  )

  it.scoped("refuses a named pipe without opening it (opening one blocks until a writer comes)", () =>
    Effect.gen(function* () {
      const { refusal, root } = yield* setup()
      execFileSync("mkfifo", [NodePath.join(root, "pipe")])
      expect(yield* refusal("read_file", { path: "pipe" })).toMatchObject({ _tag: "WrongFileType", expected: "file", actual: "fifo file" })
    }).pipe(Effect.provide(NodeFileSystem.layer))
  )

  it.scoped("reports a missing root as an access failure", () =>
    Effect.gen(function* () {
      const { base } = yield* setup()
      const registry = Registry.unsafeMake(Files.readFile({ root: NodePath.join(base, "no-such-root") }))
      const error = yield* Effect.flip(Executor.execute(registry, FunctionCall.make({ id: "c1", name: "read_file", args: { path: "a.txt" } })))
      expect(error).toMatchObject({ _tag: "ExecutionFailed", cause: { _tag: "FileAccessFailed", path: "a.txt" } })
      expect(error.message).toContain("the root directory is unavailable")
    }).pipe(Effect.provide(NodeFileSystem.layer))
  )

  it.scoped("tells the model why, in the rendered response", () =>
    Effect.gen(function* () {
      const { run } = yield* setup()
      const call = FunctionCall.make({ id: "c9", name: "read_file", args: { path: "../outside/secret.txt" } })
      const result = yield* Effect.either(run("read_file", call.args))
      const response = Executor.responseFor(call, result)
      expect(response.isError).toBe(true)
      expect(response.response).toMatchObject({
        error: {
          type: "ExecutionFailed",
          message: `"read_file" failed: path "../outside/secret.txt" refused: ".." segments are not allowed`,
          details: { _tag: "PathRefused" }
        }
      })
      expect(JSON.stringify(response.response)).not.toContain("top secret")
    }).pipe(Effect.provide(NodeFileSystem.layer))
  )
})

describe("list_dir", () => {
  it.scoped("lists the root sorted, leaving out links that lead outside and dangling links", () =>
    Effect.gen(function* () {
      const { run } = yield* setup()
      const listing = yield* run("list_dir", {})
      expect(listing).toStrictEqual({
        path: ".",
        entries: [
          { name: "a.txt", type: "file", size: 6 },
          { name: "big.txt", type: "file", size: maxBytes + 1 },
          { name: "binary.dat", type: "file", size: 4 },
          { name: "exact.txt", type: "file", size: maxBytes },
          { name: "link-in", type: "file", size: 3 },
          { name: "sub", type: "directory" }
        ],
        truncated: 0
      })
      expect(yield* run("list_dir", { path: "sub" })).toStrictEqual({ path: "sub", entries: [{ name: "b.txt", type: "file", size: 3 }], truncated: 0 })
    }).pipe(Effect.provide(NodeFileSystem.layer))
  )

  it.scoped("stops at maxEntries and says how many names were not examined", () =>
    Effect.gen(function* () {
      const { run } = yield* setup({ maxEntries: 2 })
      const listing = yield* run("list_dir", { path: "." })
      expect(listing).toMatchObject({ entries: [{ name: "a.txt" }, { name: "big.txt" }], truncated: 7 })
    }).pipe(Effect.provide(NodeFileSystem.layer))
  )

  it.scoped("refuses .., absolute paths, links leading out, files and missing directories", () =>
    Effect.gen(function* () {
      const { refusal } = yield* setup()
      expect(yield* refusal("list_dir", { path: ".." })).toMatchObject({ _tag: "PathRefused", reason: `".." segments are not allowed` })
      expect(yield* refusal("list_dir", { path: "/" })).toMatchObject({ _tag: "PathRefused", reason: "absolute paths are not allowed; give a path relative to the root" })
      expect(yield* refusal("list_dir", { path: "dir-out" })).toMatchObject({ _tag: "PathRefused", reason: "it leads outside the root through a symbolic link" })
      expect(yield* refusal("list_dir", { path: "a.txt" })).toMatchObject({ _tag: "WrongFileType", expected: "directory", actual: "file" })
      expect(yield* refusal("list_dir", { path: "nope" })).toMatchObject({ _tag: "FileNotFound", path: "nope" })
    }).pipe(Effect.provide(NodeFileSystem.layer))
  )
})
