import { describe, expect, it } from "@effect/vitest"
import { assign, parseHeader, parseTools } from "../src/internal/mcpScoped.js"

// `--mcp-header [SERVER=]Name: value` and `--mcp-tools [SERVER=]TOOL,TOOL`: which server a value is for.

const ok = <A>(parsed: { _tag: "Ok"; scoped: A } | { _tag: "Bad"; problem: string }) => (parsed._tag === "Ok" ? parsed.scoped : parsed.problem)

describe("issue 35 items 5 and 18: options for one MCP server", () => {
  it("a header, for the only server or for one named by host and port; a header name is a token, so = and : never belong to it", () => {
    expect(ok(parseHeader("Authorization: Bearer a=b"))).toEqual({ server: undefined, value: { name: "Authorization", value: "Bearer a=b" } })
    expect(ok(parseHeader("X-Key:abc="))).toEqual({ server: undefined, value: { name: "X-Key", value: "abc=" } })
    expect(ok(parseHeader("127.0.0.1:3000=Authorization: Bearer t"))).toEqual({ server: "127.0.0.1:3000", value: { name: "Authorization", value: "Bearer t" } })
    expect(ok(parseHeader("docs.example.com=X-Team:  blue "))).toEqual({ server: "docs.example.com", value: { name: "X-Team", value: "blue" } })
    expect(ok(parseHeader("Authorization Bearer t"))).toMatch(/^a header is "Name: value"/)
    expect(ok(parseHeader("Bad Name: x"))).toMatch(/^a header is/)
    expect(ok(parseHeader("X: a\r\nInjected: b"))).toMatch(/^a header is/)
    expect(ok(parseHeader("a b=X: y"))).toMatch(/^a header is/)
    // Without "=" the whole text is the header; a server's name is never empty, and its header must still read.
    expect(ok(parseHeader("X-Key:abc"))).toEqual({ server: undefined, value: { name: "X-Key", value: "abc" } })
    expect(ok(parseHeader("a=X: y"))).toEqual({ server: "a", value: { name: "X", value: "y" } })
    expect(ok(parseHeader(" X-Key :v"))).toEqual({ server: undefined, value: { name: "X-Key", value: "v" } })
    expect(ok(parseHeader("=X: y"))).toMatch(/^a header is/)
    expect(ok(parseHeader("Bearer"))).toMatch(/^a header is/)
  })

  it("a tool list, each name once; for one server when SERVER= comes first", () => {
    expect(ok(parseTools("read_text_file, list_directory"))).toEqual({ server: undefined, value: ["read_text_file", "list_directory"] })
    expect(ok(parseTools("server-filesystem=read_text_file"))).toEqual({ server: "server-filesystem", value: ["read_text_file"] })
    expect(ok(parseTools("a,b"))).toEqual({ server: undefined, value: ["a", "b"] })
    expect(ok(parseTools("a,,b"))).toBe(
      'a list of tool names, each once, separated by commas (e.g. "read_text_file,list_directory"), or "SERVER=TOOL,TOOL" for one of several servers'
    )
    expect(ok(parseTools("a,a"))).toMatch(/^a list of tool names/)
    expect(ok(parseTools("fs="))).toEqual({ server: undefined, value: ["fs="] })
  })

  it("values are assigned to servers by name; none named is the only server's; a name no server has, or two have, is refused", () => {
    const byServer = (result: ReturnType<typeof assign<string>>) => (result._tag === "Ok" ? [...result.byServer.entries()] : result._tag === "Bad" ? result.problem : result)
    expect(byServer(assign("--x", [{ server: undefined, value: "v" }], ["only"], "servers"))).toEqual([[0, ["v"]]])
    expect(byServer(assign("--x", [{ server: "b", value: "1" }, { server: "a", value: "2" }, { server: "b", value: "3" }], ["a", "b"], "servers"))).toEqual([
      [1, ["1", "3"]],
      [0, ["2"]]
    ])
    expect(byServer(assign("--x", [{ server: undefined, value: "v" }], ["a", "b"], "servers"))).toBe("--x names no server, and there are 2 servers (a, b): give it as SERVER=…")
    expect(byServer(assign("--x", [{ server: undefined, value: "v" }], [], "servers"))).toBe("--x names no server, and there are no servers it could be for")
    expect(byServer(assign("--x", [{ server: "c", value: "v" }], ["a", "b"], "servers"))).toBe(`--x is for "c", which is none of the servers (a, b)`)
    expect(byServer(assign("--x", [{ server: "c", value: "v" }], [], "servers"))).toBe(`--x is for "c", which is none of the servers (none)`)
    expect(byServer(assign("--x", [{ server: "a", value: "v" }], ["a", "a"], "servers"))).toBe(
      `--x is for "a", and 2 servers go by that name: name them apart in a scenario file (--scenario)`
    )
  })
})
