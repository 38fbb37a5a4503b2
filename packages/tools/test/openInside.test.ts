import { describe, expect, it } from "@effect/vitest"
import { execFileSync } from "node:child_process"
import * as NodeFs from "node:fs"
import * as NodeFsPromises from "node:fs/promises"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { afterAll } from "vitest"
import { isInside, kernelName, type Opened, type OpenFailure, openInside } from "../src/internal/openInside.js"

// The opening primitive of read_file and list_dir on its own: what it refuses and why, on the kernel's name for
// the descriptor (Linux) and on the portable check (dev, inode and real path) that other platforms get.

const base = NodeFs.realpathSync(NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "agentfx-open-")))
const root = NodePath.join(base, "root")
const outside = NodePath.join(base, "outside")
NodeFs.mkdirSync(NodePath.join(root, "sub"), { recursive: true })
NodeFs.mkdirSync(outside)
NodeFs.writeFileSync(NodePath.join(root, "a.txt"), "hello")
NodeFs.writeFileSync(NodePath.join(outside, "secret.txt"), "top secret")
NodeFs.symlinkSync(NodePath.join(root, "a.txt"), NodePath.join(root, "link"))
NodeFs.symlinkSync(NodePath.join(root, "sub"), NodePath.join(root, "sub-link"))
execFileSync("mkfifo", [NodePath.join(root, "pipe")])
afterAll(() => NodeFs.rmSync(base, { recursive: true, force: true }))

const noKernelName = () => Promise.resolve(undefined)
const namings = { "the kernel's name": undefined, "the portable check": noKernelName } as const

/** Opens, closes what was opened, and returns what the caller would see. */
const attempt = async (real: string, kind: "file" | "directory", nameOf?: (fd: number) => Promise<string | undefined>, within = root) => {
  const opened: Opened | OpenFailure = await openInside(within, real, kind, nameOf)
  if (!("handle" in opened)) return opened
  const seen = {
    self: opened.self,
    isFile: opened.stats.isFile(),
    content: kind === "file" ? (await opened.handle.readFile("utf8")) : (await NodeFsPromises.readdir(opened.self)).sort()
  }
  await opened.handle.close()
  return seen
}

describe("isInside", () => {
  it("the root itself and what lies under it; not a sibling that shares its prefix", () => {
    expect(isInside("/a/b", "/a/b")).toBe(true)
    expect(isInside("/a/b", "/a/b/c")).toBe(true)
    expect(isInside("/a/b", "/a/bc")).toBe(false)
    expect(isInside("/a/b", "/a")).toBe(false)
    expect(isInside("/a/b/", "/a/b/c")).toBe(true)
    expect(isInside("/", "/etc")).toBe(true)
  })
})

describe("kernelName", () => {
  it("an open file's descriptor is named by its path; a descriptor that is not open has no name", async () => {
    const handle = await NodeFsPromises.open(NodePath.join(root, "a.txt"), "r")
    try {
      expect(await kernelName(handle.fd)).toBe(NodePath.join(root, "a.txt"))
    } finally {
      await handle.close()
    }
    expect(await kernelName(2 ** 30)).toBeUndefined()
  })
})

describe("openInside", () => {
  for (const [naming, nameOf] of Object.entries(namings)) {
    it(`opens a file and a directory under the root (${naming})`, async () => {
      const file = await attempt(NodePath.join(root, "a.txt"), "file", nameOf)
      expect(file).toMatchObject({ isFile: true, content: "hello" })
      const directory = await attempt(root, "directory", nameOf)
      expect(directory).toMatchObject({ isFile: false, content: ["a.txt", "link", "pipe", "sub", "sub-link"] })
      if (nameOf === undefined) {
        expect((file as { self: string }).self).toMatch(/^\/proc\/self\/fd\/\d+$/)
      } else {
        expect([(file as { self: string }).self, (directory as { self: string }).self]).toEqual([NodePath.join(root, "a.txt"), root])
      }
    })

    it(`refuses a link in the last component, a wrong type, a FIFO without blocking, and what is missing (${naming})`, async () => {
      expect(await attempt(NodePath.join(root, "link"), "file", nameOf)).toEqual({ _tag: "Escaped" })
      expect(await attempt(NodePath.join(root, "sub-link"), "directory", nameOf)).toEqual({ _tag: "Escaped" })
      const directory = await attempt(NodePath.join(root, "sub"), "file", nameOf)
      expect(directory).toMatchObject({ _tag: "WrongType" })
      expect((directory as { actual: NodeFs.Stats }).actual.isDirectory()).toBe(true)
      const file = await attempt(NodePath.join(root, "a.txt"), "directory", nameOf)
      expect((file as { actual: NodeFs.Stats }).actual.isFile()).toBe(true)
      const fifo = await attempt(NodePath.join(root, "pipe"), "file", nameOf)
      expect((fifo as { actual: NodeFs.Stats }).actual.isFIFO()).toBe(true)
      expect(await attempt(NodePath.join(root, "missing.txt"), "file", nameOf)).toEqual({ _tag: "Missing" })
      // A file where a directory should be, on the way: the path names nothing.
      expect(await attempt(NodePath.join(root, "a.txt", "x"), "file", nameOf)).toEqual({ _tag: "Missing" })
    })
  }

  it("a path that was never under the root is refused once opened, by the kernel's name for it", async () => {
    expect(await attempt(NodePath.join(outside, "secret.txt"), "file", undefined)).toEqual({ _tag: "Escaped" })
  })

  it("the portable check refuses a path whose real location is elsewhere (a link on the way)", async () => {
    NodeFs.writeFileSync(NodePath.join(root, "sub", "b.txt"), "bee")
    expect(await attempt(NodePath.join(root, "sub-link", "b.txt"), "file", noKernelName)).toEqual({ _tag: "Escaped" })
  })

  it("a name the kernel gives is checked against the root, whatever the path said", async () => {
    const elsewhere = () => Promise.resolve(NodePath.join(outside, "secret.txt"))
    expect(await attempt(NodePath.join(root, "a.txt"), "file", elsewhere)).toEqual({ _tag: "Escaped" })
    const inside = () => Promise.resolve(NodePath.join(root, "sub", "b.txt"))
    expect(await attempt(NodePath.join(root, "a.txt"), "file", inside)).toMatchObject({ content: "hello" })
  })

  it("a failure to look at the path is told with its code and message", async () => {
    const long = NodePath.join(root, "x".repeat(300))
    const failed = await attempt(long, "file")
    expect(failed).toMatchObject({ _tag: "Failed", code: "ENAMETOOLONG" })
    expect((failed as { message: string }).message).toContain("ENAMETOOLONG")
  })
})
