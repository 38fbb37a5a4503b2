import { describe, expect, it } from "@effect/vitest"

// Each built-in is imported inside a test, not at this file's import: a module whose top level throws (a tool
// definition `Tool.make` refuses) then fails a test here instead of only failing other files' imports.
const load = {
  Clock: () => import("../src/builtins/Clock.js"),
  FetchUrl: () => import("../src/builtins/FetchUrl.js"),
  Files: () => import("../src/builtins/Files.js")
}

describe("the built-in tools declare themselves to the model", () => {
  it("clock: its name, what it does, and the zone it defaults to", async () => {
    const Clock = await load.Clock()
    expect(Clock.tool.declaration).toStrictEqual({
      name: "clock",
      description: "Current date and time in an IANA time zone (default UTC).",
      parameters: {
        type: "object",
        properties: { time_zone: { type: "string", description: "IANA time zone, e.g. \"Europe/Oslo\" (default \"UTC\")" } },
        required: [],
        additionalProperties: false
      }
    })
  })

  it("fetch_url: its name, the hosts it may fetch from (or none), and the URL it takes", async () => {
    const FetchUrl = await load.FetchUrl()
    expect(FetchUrl.make({ allowHosts: ["a.com", "*.b.org"] }).declaration).toStrictEqual({
      name: "fetch_url",
      description: "Fetches a web page or API response with an HTTP GET (hosts: a.com, *.b.org). Returns status, content type and body text.",
      parameters: {
        type: "object",
        required: ["url"],
        properties: { url: { type: "string", description: "Absolute http or https URL" } },
        additionalProperties: false
      }
    })
    expect(FetchUrl.make({ allowHosts: [] }).declaration.description).toContain("(hosts: none)")
  })

  it("read_file and list_dir: their names, the size limit, and the path relative to the root", async () => {
    const Files = await load.Files()
    const [readFile, listDir] = Files.tools({ root: "." })
    expect(readFile.declaration).toStrictEqual({
      name: "read_file",
      description: "Reads a UTF-8 text file (at most 1048576 bytes) under the root directory; the path is relative to the root.",
      parameters: {
        type: "object",
        required: ["path"],
        properties: { path: { type: "string", description: "Path of the file, relative to the root directory" } },
        additionalProperties: false
      }
    })
    expect(Files.readFile({ root: ".", maxBytes: 10 }).declaration.description).toContain("(at most 10 bytes)")
    expect(listDir.declaration).toStrictEqual({
      name: "list_dir",
      description: "Lists a directory under the root directory (names, types and file sizes); the path is relative to the root.",
      parameters: {
        type: "object",
        required: [],
        properties: { path: { type: "string", description: "Directory relative to the root (default: the root itself)" } },
        additionalProperties: false
      }
    })
  })
})
