import { NodeFileSystem } from "@effect/platform-node"
import { SystemError } from "@effect/platform/Error"
import * as FileSystem from "@effect/platform/FileSystem"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as NodePath from "node:path"
import * as BoundedText from "../src/internal/boundedText.js"

const info = (type: FileSystem.File.Type, size: number) => ({ type, size: FileSystem.Size(size) }) as unknown as FileSystem.File.Info

const failure = (method: string) => new SystemError({ reason: "PermissionDenied", module: "FileSystem", method, pathOrDescriptor: "/x", description: "no" })

interface FakeFile {
  /** What `stat` says before the open. */
  readonly before: FileSystem.File.Info
  /** What the opened handle says. */
  readonly after?: FileSystem.File.Info
  /** The bytes each read returns, given how many were asked for; `undefined` at the end. */
  readonly read?: (size: number) => Uint8Array | undefined
  readonly fail?: "stat" | "open" | "handle.stat" | "read"
}

/** A file system of one file, recording each open and each read's size. */
const fake = (file: FakeFile) => {
  const seen = { opens: 0, reads: [] as Array<number> }
  const handle = {
    stat: file.fail === "handle.stat" ? Effect.fail(failure("stat")) : Effect.succeed(file.after ?? file.before),
    readAlloc: (size: FileSystem.SizeInput) =>
      Effect.suspend(() => {
        seen.reads.push(Number(size))
        return file.fail === "read" ? Effect.fail(failure("read")) : Effect.succeed(Option.fromNullable(file.read?.(Number(size))))
      })
  } as unknown as FileSystem.File
  const layer = FileSystem.layerNoop({
    stat: () => (file.fail === "stat" ? Effect.fail(failure("stat")) : Effect.succeed(file.before)),
    open: () =>
      Effect.suspend(() => {
        seen.opens++
        return file.fail === "open" ? Effect.fail(failure("open")) : Effect.succeed(handle)
      })
  })
  return { seen, layer }
}

/** Reads that return `total` bytes in all, `each` at most per read (fewer if fewer were asked for). */
const content = (total: number, each = Infinity) => {
  let left = total
  return (size: number) => {
    if (left === 0) return undefined
    const n = Math.min(size, each, left)
    left -= n
    return new Uint8Array(n).fill(0x61)
  }
}

describe("BoundedText.read", () => {
  it.scoped("reads a regular file's UTF-8 text, up to and at the limit", () =>
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const dir = yield* fs.makeTempDirectoryScoped({ prefix: "agentfx-bounded-" })
      const file = NodePath.join(dir, "a.txt")
      yield* fs.writeFileString(file, "hé ✓")
      const size = Buffer.byteLength("hé ✓")
      expect(yield* BoundedText.read(file, size)).toBe("hé ✓")
      expect(yield* BoundedText.read(file, 1000)).toBe("hé ✓")
      expect(yield* Effect.flip(BoundedText.read(file, size - 1))).toBe(`is ${size} bytes, more than the limit of ${size - 1} bytes`)
      const missing = yield* Effect.flip(BoundedText.read(NodePath.join(dir, "missing.txt"), 1000))
      expect(missing).toMatch(/^cannot be read: NotFound: /)
    }).pipe(Effect.provide(NodeFileSystem.layer))
  )

  it.effect("refuses what is not a regular file by its type, before opening it", () =>
    Effect.gen(function* () {
      const cases: ReadonlyArray<readonly [FileSystem.File.Type, string]> = [
        ["Directory", "a directory"],
        ["FIFO", "a named pipe"],
        ["CharacterDevice", "a device"],
        ["BlockDevice", "a device"],
        ["Socket", "a socket"],
        // Types a stat that follows links never gives, named all the same.
        ["SymbolicLink", "a symbolic link"],
        ["Unknown", "of an unknown type"]
      ]
      for (const [type, name] of cases) {
        const { seen, layer } = fake({ before: info(type, 0), read: content(0) })
        const reason = yield* Effect.flip(BoundedText.read("/x", 100).pipe(Effect.provide(layer)))
        expect(reason, type).toMatch(new RegExp(`^is ${name}, not a regular file \\(refused before reading\\)$`))
        expect(seen.opens, type).toBe(0)
      }
    })
  )

  it.effect("refuses a file swapped for another type between the check and the open, without reading it", () =>
    Effect.gen(function* () {
      const { seen, layer } = fake({ before: info("File", 3), after: info("FIFO", 0), read: content(3) })
      expect(yield* Effect.flip(BoundedText.read("/x", 100).pipe(Effect.provide(layer)))).toBe("is a named pipe, not a regular file (refused before reading)")
      expect(seen.reads).toStrictEqual([])
    })
  )

  it.effect("reads a file that grew past the limit since its size was read no further than limit + 1 bytes, and refuses it", () =>
    Effect.gen(function* () {
      // One byte per read: the read that finds the limit passed is the one after the limit was reached.
      const trickle = fake({ before: info("File", 0), read: content(Infinity, 1) })
      expect(yield* Effect.flip(BoundedText.read("/x", 5).pipe(Effect.provide(trickle.layer)))).toBe("is more than the limit of 5 bytes")
      expect(trickle.seen.reads).toStrictEqual([6, 5, 4, 3, 2, 1])
      // A file without end (a device behind a regular file's stat): reads of at most 64 KiB, limit + 1 bytes in all.
      const endless = fake({ before: info("File", 0), read: content(Infinity) })
      const limit = 200_000
      expect(yield* Effect.flip(BoundedText.read("/x", limit).pipe(Effect.provide(endless.layer)))).toBe(`is more than the limit of ${limit} bytes`)
      expect(endless.seen.reads).toStrictEqual([65_536, 65_536, 65_536, limit + 1 - 3 * 65_536])
    })
  )

  it.effect("reads a file exactly at the limit to its end, in chunks", () =>
    Effect.gen(function* () {
      const { seen, layer } = fake({ before: info("File", 5), read: content(5, 2) })
      expect(yield* BoundedText.read("/x", 5).pipe(Effect.provide(layer))).toBe("aaaaa")
      expect(seen.reads).toStrictEqual([6, 4, 2, 1])
    })
  )

  it.effect("says why a file could not be read, whichever step failed", () =>
    Effect.gen(function* () {
      for (const step of ["stat", "open", "handle.stat", "read"] as const) {
        const { layer } = fake({ before: info("File", 3), read: content(3), fail: step })
        const method = step === "handle.stat" ? "stat" : step
        expect(yield* Effect.flip(BoundedText.read("/x", 100).pipe(Effect.provide(layer))), step).toBe(`cannot be read: ${failure(method).message}`)
      }
    })
  )

  it("refuses input files over 4 MiB unless told otherwise", () => {
    expect(BoundedText.defaultMaxBytes).toBe(4 * 1024 * 1024)
  })
})
