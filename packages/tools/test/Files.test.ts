import { execFileSync } from "node:child_process"
import { NodeFileSystem } from "@effect/platform-node"
import { BadArgument, type PlatformError, SystemError } from "@effect/platform/Error"
import * as FileSystem from "@effect/platform/FileSystem"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as NodeFs from "node:fs"
import * as NodeNet from "node:net"
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

  it.scoped("refuses a socket, naming its type, as a file to read and as a directory to list", () =>
    Effect.gen(function* () {
      const { refusal, root } = yield* setup()
      const server = NodeNet.createServer()
      yield* Effect.acquireRelease(
        Effect.async<void>((resume) => void server.listen(NodePath.join(root, "sock"), () => resume(Effect.void))),
        () => Effect.async<void>((resume) => void server.close(() => resume(Effect.void)))
      )
      expect(yield* refusal("read_file", { path: "sock" })).toMatchObject({ _tag: "WrongFileType", expected: "file", actual: "socket file" })
      expect(yield* refusal("list_dir", { path: "sock" })).toMatchObject({ _tag: "WrongFileType", expected: "directory", actual: "socket file" })
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

describe("read_file and list_dir as the model sees them", () => {
  it("each error says what happened in its message", () => {
    expect(new Files.FileNotFound({ path: "a" }).message).toBe('"a" does not exist')
    expect(new Files.WrongFileType({ path: "a", expected: "file", actual: "directory" }).message).toBe('"a" is a directory, not a file')
    expect(new Files.FileTooLarge({ path: "a", size: 9, limit: 8 }).message).toBe('"a" is 9 bytes, more than the limit of 8 bytes')
    expect(new Files.NotText({ path: "a" }).message).toBe('"a" is not UTF-8 text')
    expect(new Files.FileAccessFailed({ path: "a", reason: "busy" }).message).toBe('cannot access "a": busy')
    expect(new Files.PathRefused({ path: "a", reason: "no" }).message).toBe('path "a" refused: no')
  })

  it("the declarations name the limit (1 MiB unless told) and say the paths are relative to the root", () => {
    expect(Files.defaultMaxBytes).toBe(1_048_576)
    expect(Files.readFile({ root: "." }).description).toBe(
      "Reads a UTF-8 text file (at most 1048576 bytes) under the root directory; the path is relative to the root."
    )
    expect(Files.readFile({ root: ".", maxBytes: 64 }).description).toContain("(at most 64 bytes)")
    expect(Files.listDir({ root: "." }).description).toBe(
      "Lists a directory under the root directory (names, types and file sizes); the path is relative to the root."
    )
    const [read, list] = Files.tools({ root: "." }).map((tool) => tool.declaration.parameters as { properties: Record<string, { description?: string }>; required?: Array<string> })
    expect(read!.properties.path!.description).toBe("Path of the file, relative to the root directory")
    expect(read!.required).toEqual(["path"])
    expect(list!.properties.path!.description).toBe("Directory relative to the root (default: the root itself)")
    expect(list!.required ?? []).toEqual([])
  })

  it("the exported result Schemas check what they describe", () => {
    expect(Schema.is(Files.ReadFileResult)({ path: "a", size: "6", content: "x" })).toBe(false)
    expect(Schema.is(Files.ReadFileResult)({ path: "a", size: 6, content: "x" })).toBe(true)
    expect(Schema.is(Files.Entry)({ name: "a", type: "link" })).toBe(false)
    expect(Schema.is(Files.Entry)({ name: 1, type: "file" })).toBe(false)
    expect(Schema.is(Files.ListDirResult)({ path: ".", entries: [{ name: "a", type: "link" }], truncated: 0 })).toBe(false)
    expect(Schema.is(Files.ListDirResult)({ path: ".", entries: [], truncated: "0" })).toBe(false)
    expect(Schema.is(Files.ListDirResult)({ path: ".", entries: [{ name: "a", type: "other" }], truncated: 0 })).toBe(true)
  })

  it.scoped("arguments of the wrong type are refused before the handler runs", () =>
    Effect.gen(function* () {
      const { run } = yield* setup()
      for (const [name, args] of [["read_file", { path: 42 }], ["read_file", {}], ["list_dir", { path: 5 }], ["list_dir", { path: ".", depth: 2 }]] as const) {
        expect(yield* Effect.flip(run(name, args))).toMatchObject({ _tag: "InvalidArguments" })
      }
    }).pipe(Effect.provide(NodeFileSystem.layer))
  )

  it.scoped("the results reach the model whole, as their Schemas encode them", () =>
    Effect.gen(function* () {
      const { run } = yield* setup()
      const render = (name: "read_file" | "list_dir", args: Record<string, unknown>) =>
        Effect.map(Effect.either(run(name, args)), (result) => Executor.responseFor(FunctionCall.make({ id: "r", name, args }), result).response)
      expect(yield* render("read_file", { path: "a.txt" })).toEqual({ path: "a.txt", size: 6, content: "hello\n" })
      expect(yield* render("list_dir", { path: "sub" })).toEqual({ path: "sub", entries: [{ name: "b.txt", type: "file", size: 3 }], truncated: 0 })
      const root = (yield* render("list_dir", {})) as { entries: Array<{ name: string; type: string }> }
      expect(root.entries.find((entry) => entry.name === "sub")).toEqual({ name: "sub", type: "directory" })
    }).pipe(Effect.provide(NodeFileSystem.layer))
  )

  it.scoped("an empty or blank directory path lists the root; names come sorted whatever order they were made in", () =>
    Effect.gen(function* () {
      const { run, root } = yield* setup()
      const whole = yield* run("list_dir", { path: "." })
      expect(yield* run("list_dir", { path: "" })).toStrictEqual(whole)
      expect(yield* run("list_dir", { path: "  " })).toStrictEqual(whole)
      const many = NodePath.join(root, "many")
      NodeFs.mkdirSync(many)
      const names = Array.from({ length: 40 }, (_, i) => `n${String((i * 17) % 40).padStart(2, "0")}`)
      for (const name of names) NodeFs.writeFileSync(NodePath.join(many, name), "")
      const listed = (yield* run("list_dir", { path: "many" })) as { entries: Array<{ name: string }> }
      expect(listed.entries.map((entry) => entry.name)).toEqual([...names].sort())
    }).pipe(Effect.provide(NodeFileSystem.layer))
  )

  it.scoped("a path through a file is an access failure that says why; a missing root says it is unavailable and why", () =>
    Effect.gen(function* () {
      const { base, refusal } = yield* setup()
      const through = yield* refusal("read_file", { path: "a.txt/x" })
      expect(through).toMatchObject({ _tag: "FileAccessFailed", path: "a.txt/x" })
      expect(String(through.reason)).toMatch(/ENOTDIR/)
      const registry = Registry.unsafeMake(Files.listDir({ root: NodePath.join(base, "no-such-root") }))
      const missing = yield* Effect.flip(Executor.execute(registry, FunctionCall.make({ id: "c1", name: "list_dir", args: {} })))
      expect(missing).toMatchObject({ _tag: "ExecutionFailed", cause: { _tag: "FileAccessFailed", path: "." } })
      expect((missing as { cause: { reason: string } }).cause.reason).toMatch(/^the root directory is unavailable \(.*no-such-root.*\)$/)
    }).pipe(Effect.provide(NodeFileSystem.layer))
  )
})

describe("read_file does not trust the size the file system reports", () => {
  // /proc's files report a size of 0 and hold more: the read goes by what arrives, as for a file that grows.
  const proc = (maxBytes: number) => {
    const registry = Registry.unsafeMake(Files.readFile({ root: "/proc/self", maxBytes }))
    return Executor.execute(registry, FunctionCall.make({ id: "p", name: "read_file", args: { path: "status" } }))
  }

  it.effect("a file larger than its reported size is read to its end", () =>
    Effect.gen(function* () {
      const read = (yield* proc(1024 * 1024)) as { size: number; content: string }
      expect(read.content).toMatch(/^Name:\t/)
      expect(read.size).toBe(Buffer.byteLength(read.content))
      expect(read.size).toBeGreaterThan(64)
    }).pipe(Effect.provide(NodeFileSystem.layer))
  )

  it.effect("and refused once it holds more than the limit, with the size read so far", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(proc(64))
      expect(error).toMatchObject({ _tag: "ExecutionFailed", cause: { _tag: "FileTooLarge", path: "status", size: 65, limit: 64 } })
    }).pipe(Effect.provide(NodeFileSystem.layer))
  )
})

describe("read_file and list_dir when the file system refuses to resolve a path", () => {
  /** The Node file system, but `realPath` fails with what `fail` gives for a path (or resolves as usual). */
  const realPathFailing = (fail: (path: string) => PlatformError | undefined) =>
    Layer.effect(
      FileSystem.FileSystem,
      Effect.map(FileSystem.FileSystem, (fs) => ({ ...fs, realPath: (path: string) =>
        Effect.suspend(() => {
          const error = fail(path)
          return error === undefined ? fs.realPath(path) : Effect.fail(error)
        }) }))
    ).pipe(Layer.provide(NodeFileSystem.layer))
  const denied = (path: string) => new SystemError({ reason: "PermissionDenied", module: "FileSystem", method: "realPath", pathOrDescriptor: path })
  const reasonOf = (name: "read_file" | "list_dir", root: string, fail: (path: string) => PlatformError | undefined) =>
    Effect.gen(function* () {
      const registry = Registry.unsafeMake(...Files.tools({ root, maxBytes }))
      return yield* Effect.flip(Executor.execute(registry, FunctionCall.make({ id: "c", name, args: name === "read_file" ? { path: "a.txt" } : {} })))
    }).pipe(Effect.provide(realPathFailing(fail)))

  it.scoped("permission denied on the root, or on the path, is said so without the path", () =>
    Effect.gen(function* () {
      const { root } = yield* fixture
      const onRoot = yield* reasonOf("read_file", root, (path) => (path === root ? denied(path) : undefined))
      expect(onRoot).toMatchObject({ cause: { _tag: "FileAccessFailed", path: "a.txt", reason: "the root directory is unavailable (permission denied)" } })
      const onPath = yield* reasonOf("read_file", root, (path) => (path.endsWith("a.txt") ? denied(path) : undefined))
      expect(onPath).toMatchObject({ cause: { _tag: "FileAccessFailed", path: "a.txt", reason: "permission denied" } })
    }).pipe(Effect.provide(NodeFileSystem.layer))
  )

  it.scoped("another failure is told with the file system's own message", () =>
    Effect.gen(function* () {
      const { root } = yield* fixture
      const busy = yield* reasonOf("read_file", root, (path) => (path === root ? undefined : new SystemError({ reason: "Busy", module: "FileSystem", method: "realPath", description: "try later" })))
      expect(busy).toMatchObject({ cause: { _tag: "FileAccessFailed", path: "a.txt", reason: "Busy: FileSystem.realPath: try later" } })
      const bad = yield* reasonOf("list_dir", root, (path) => (path === root ? new BadArgument({ module: "FileSystem", method: "realPath", description: "bad root" }) : undefined))
      expect(bad).toMatchObject({ cause: { _tag: "FileAccessFailed", reason: "the root directory is unavailable (FileSystem.realPath: bad root)" } })
    }).pipe(Effect.provide(NodeFileSystem.layer))
  )
})
