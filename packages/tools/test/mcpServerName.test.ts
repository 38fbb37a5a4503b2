import * as Mcp from "@agentfx/tools/mcp"
import { describe, expect, it } from "@effect/vitest"
import * as NodePath from "node:path"
import { baseName, serverName } from "../src/internal/mcpServerName.js"

// The name a server goes by when it is given none, and the server a scenario's `mcp` entry describes.

describe("baseName", () => {
  it("a package's name without its scope or version; a file's name without its folder or script extension", () => {
    expect(baseName("@modelcontextprotocol/server-everything@1.2.3")).toBe("server-everything")
    expect(baseName("@modelcontextprotocol/server-everything")).toBe("server-everything")
    expect(baseName("server-fetch@latest")).toBe("server-fetch")
    expect(baseName("/srv/mcp/server.mjs")).toBe("server")
    expect(baseName("./tools/server.js")).toBe("server")
    expect(baseName("weather.cjs")).toBe("weather")
    expect(baseName("weather.py")).toBe("weather")
    expect(baseName("weather.ts")).toBe("weather")
    // Only a trailing extension, and only a script's.
    expect(baseName("weather.json")).toBe("weather.json")
    expect(baseName("server.js.bak")).toBe("server.js.bak")
    expect(baseName("a.mjs.b")).toBe("a.mjs.b")
    // Only the last `@…` goes: a version, not what precedes it.
    expect(baseName("name@1@2")).toBe("name@1")
    expect(baseName("x@ab/y@cd")).toBe("y")
  })

  it("a word that would leave nothing is kept whole", () => {
    expect(baseName("@scope")).toBe("@scope")
    expect(baseName(".js")).toBe(".js")
  })
})

describe("serverName", () => {
  it("a name given is kept as given; a blank one is not a name", () => {
    expect(serverName(Mcp.stdio("npx -y @acme/server", { name: " weather " }))).toBe(" weather ")
    expect(serverName(Mcp.stdio("npx -y @acme/server", { name: "   " }))).toBe("server")
    expect(serverName(Mcp.stdio("npx -y @acme/server", { name: "" }))).toBe("server")
    expect(serverName(Mcp.http("https://mcp.example.com/mcp", { name: "docs" }))).toBe("docs")
  })

  it("over HTTP, the URL's host and port only; a URL without one gives a generic name", () => {
    expect(serverName(Mcp.http("https://user:token@mcp.example.com:8443/mcp?key=SECRET"))).toBe("mcp.example.com:8443")
    expect(serverName(Mcp.http("not a url"))).toBe("http-server")
  })

  it("over stdio, the program past the launcher and its options", () => {
    expect(serverName(Mcp.stdio("npx -y @modelcontextprotocol/server-everything@2025.1.0"))).toBe("server-everything")
    expect(serverName(Mcp.stdio("node /srv/mcp/weather.mjs --port 3"))).toBe("weather")
    expect(serverName(Mcp.stdio("/usr/local/bin/node ./server.js"))).toBe("server")
    expect(serverName(Mcp.stdio("uvx mcp-server-fetch"))).toBe("mcp-server-fetch")
    expect(serverName(Mcp.stdio("python3 -m mcp_server_time"))).toBe("mcp_server_time")
    expect(serverName(Mcp.stdio("python server.py"))).toBe("server")
    for (const launcher of ["nodejs", "pnpm", "deno", "bun"]) expect(serverName(Mcp.stdio(`${launcher} tool.ts`))).toBe("tool")
    // The launcher's name must be whole: these are programs.
    expect(serverName(Mcp.stdio("npxtool serve"))).toBe("npxtool")
    expect(serverName(Mcp.stdio("my-node serve"))).toBe("my-node")
    expect(serverName(Mcp.stdio("python3.12-server run"))).toBe("python3.12-server")
    expect(serverName(Mcp.stdio("pythons run"))).toBe("pythons")
    // With command and args given apart.
    expect(serverName(Mcp.stdio("npx", { args: ["-y", "@acme/mail-server"] }))).toBe("mail-server")
    expect(serverName(Mcp.stdio("/opt/weather/bin/weather-mcp", { args: [] }))).toBe("weather-mcp")
  })

  it("skips options, and words that cannot name a package or a file, whatever they end with", () => {
    expect(serverName(Mcp.stdio("npx", { args: ["--yes", "-", "a b", "weather"] }))).toBe("weather")
    expect(serverName(Mcp.stdio("npx", { args: ["x-", "rest"] }))).toBe("x-")
    expect(serverName(Mcp.stdio("npx", { args: ["é-server", "plain"] }))).toBe("plain")
    expect(serverName(Mcp.stdio("npx", { args: ["server!", "plain"] }))).toBe("plain")
    expect(serverName(Mcp.stdio("npx", { args: ["!server", "plain"] }))).toBe("plain")
    expect(serverName(Mcp.stdio("npx", { args: ["$", "ok"] }))).toBe("ok")
  })

  it("a command of launchers only is named by its command", () => {
    expect(serverName(Mcp.stdio("npx --yes"))).toBe("npx")
    expect(serverName(Mcp.stdio("/usr/bin/node", { args: ["--inspect"] }))).toBe("node")
  })
})

describe("fromScenario", () => {
  it("an entry with a URL is an HTTP server, with its headers when it has any", () => {
    expect(Mcp.fromScenario({ name: "docs", url: "https://mcp.example.com/mcp", headers: { authorization: "Bearer x" } })).toEqual({
      _tag: "Http",
      name: "docs",
      url: "https://mcp.example.com/mcp",
      headers: { authorization: "Bearer x" }
    })
    const plain = Mcp.fromScenario({ name: "docs", url: "https://mcp.example.com/mcp" }, "/scenarios/a.md")
    expect(plain).toEqual({ _tag: "Http", name: "docs", url: "https://mcp.example.com/mcp" })
    expect("cwd" in plain).toBe(false)
  })

  it("an entry with a command runs it, split like a shell's unless its args are given, in the scenario file's folder", () => {
    expect(Mcp.fromScenario({ name: "w", command: "node ./server.js --verbose", env: { TOKEN: "t" } }, "scenarios/weather.md")).toEqual({
      _tag: "Stdio",
      name: "w",
      command: "node",
      args: ["./server.js", "--verbose"],
      env: { TOKEN: "t" },
      cwd: NodePath.resolve("scenarios")
    })
    expect(Mcp.fromScenario({ name: "w", command: "my server", args: ["a b"] })).toEqual({ _tag: "Stdio", name: "w", command: "my server", args: ["a b"] })
    expect(Mcp.fromScenario({ name: "w", command: "my server" })).toEqual({ _tag: "Stdio", name: "w", command: "my", args: ["server"] })
  })
})
