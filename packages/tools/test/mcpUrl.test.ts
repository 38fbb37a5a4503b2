import { describe, expect, it } from "@effect/vitest"
import { hostOf, urlProblem } from "../src/internal/mcpUrl.js"

// What errors may show of an MCP server's URL: the host, or what is wrong with the URL — never the URL itself.

describe("hostOf", () => {
  it("the host with its port; nothing for a URL that does not parse or has no host", () => {
    expect(hostOf("https://user:token@mcp.example.com:8443/mcp?key=secret")).toBe("mcp.example.com:8443")
    expect(hostOf("http://127.0.0.1/mcp")).toBe("127.0.0.1")
    expect(hostOf("not a url")).toBeUndefined()
    expect(hostOf("mailto:someone@example.com")).toBeUndefined()
  })
})

describe("urlProblem", () => {
  it("none for http and https URLs without credentials", () => {
    expect(urlProblem("http://127.0.0.1:3000/mcp")).toBeUndefined()
    expect(urlProblem("https://mcp.example.com/mcp?key=secret")).toBeUndefined()
  })

  it("names what is wrong, quoting at most the scheme", () => {
    expect(urlProblem("::not a url secret")).toBe("its URL does not parse")
    expect(urlProblem("ftp://files.example.com/secret")).toBe('its URL\'s scheme is "ftp", not http or https')
    for (const url of ["https://user:token@mcp.example.com/mcp", "https://user@mcp.example.com/mcp", "https://:token@mcp.example.com/mcp"]) {
      expect(urlProblem(url)).toBe("its URL holds a user name or password, which fetch refuses: send credentials in `headers`")
    }
  })
})
