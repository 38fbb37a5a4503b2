import { describe, expect, it } from "@effect/vitest"
import { maxChars, summary } from "../src/internal/errorBody.js"

// What an HTTP error's body says, in one short line: the SDK quotes it in the error a server's refusal becomes.

describe("issue 35 item 18: an error's body in one line", () => {
  it("an HTML page: its text, without head, scripts, styles, comments or tags; entities read; its title when it has no other text", () => {
    const express = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>Error</title>\n</head>\n<body>\n<pre>Cannot POST /mcp</pre>\n</body>\n</html>\n"
    expect(summary(express, "text/html; charset=utf-8")).toBe("an HTML page: Cannot POST /mcp")
    const nginx = "<html>\r\n<head><title>404 Not Found</title></head>\r\n<body>\r\n<center><h1>404 Not Found</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>"
    expect(summary(nginx, null)).toBe("an HTML page: 404 Not Found nginx")
    expect(summary("<html><head><title>Gone &amp; away</title></head><body><script>x()</script><style>p{}</style><!-- c --></body></html>", "text/html")).toBe(
      "an HTML page: Gone & away"
    )
    expect(summary("<p>a &lt;b&gt; &#65;&#x42; &bogus; &#0;</p>", "text/html")).toBe("an HTML page: a <b> AB &bogus; &#0;")
    expect(summary("<html></html>", "text/html")).toBe("an HTML page")
  })

  it("anything else: its words on one line, control characters gone; empty said so; cut at the bound", () => {
    expect(summary('{"error":\n  "bad token"}\n', "application/json")).toBe('{"error": "bad token"}')
    expect(summary("a\u001b[31mred\u0007\tb", "text/plain")).toBe("a [31mred b")
    expect(summary(" \n ", "text/plain")).toBe("an empty body")
    const long = summary("w".repeat(500), null)
    expect(long).toHaveLength(maxChars)
    expect(long.endsWith("…")).toBe(true)
    expect(summary(`<!doctype html><p>${"x ".repeat(200)}</p>`, null)).toHaveLength(maxChars)
  })
})
