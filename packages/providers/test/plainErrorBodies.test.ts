/**
 * The fetch wrapper that keeps an error's HTTP status when its body claims JSON but is not (a proxy's page): driven
 * directly with stand-in responses.
 */
import { describe, expect, it } from "@effect/vitest"
import { plainErrorBodies } from "../src/internal/gemini/errorBodies.js"

const answering = (response: Response): typeof globalThis.fetch => () => Promise.resolve(response)
const fetchOf = (body: string, status: number, headers: Record<string, string>) => plainErrorBodies(answering(new Response(body, { status, headers })))("http://h")

describe("plainErrorBodies", () => {
  it("passes a success, and an error that is not JSON, through untouched (the same object)", async () => {
    const ok = new Response('{"a":1}', { status: 200, headers: { "content-type": "application/json" } })
    expect(await plainErrorBodies(answering(ok))("http://h")).toBe(ok)
    const html = new Response("<h1>502</h1>", { status: 502, headers: { "content-type": "text/html" } })
    expect(await plainErrorBodies(answering(html))("http://h")).toBe(html)
    const bare = new Response("oops", { status: 500 })
    expect(await plainErrorBodies(answering(bare))("http://h")).toBe(bare)
    const empty = new Response(null, { status: 503 })
    expect(empty.headers.get("content-type")).toBeNull()
    expect(await plainErrorBodies(answering(empty))("http://h")).toBe(empty)
  })

  it("an error whose JSON body does not parse becomes plain text, with its status, other headers and body", async () => {
    const response = await fetchOf("<html>Service Unavailable</html>", 503, { "content-type": "Application/JSON; charset=utf-8", "content-length": "33", "x-kept": "yes" })
    expect(response.status).toBe(503)
    expect(response.headers.get("content-type")).toBe("text/plain; charset=utf-8")
    expect(response.headers.get("content-length")).toBeNull()
    expect(response.headers.get("x-kept")).toBe("yes")
    expect(await response.text()).toBe("<html>Service Unavailable</html>")
    const empty = await fetchOf("", 500, { "content-type": "application/json" })
    expect([empty.status, empty.headers.get("content-type"), await empty.text()]).toEqual([500, "text/plain; charset=utf-8", ""])
  })

  it("an error with a readable JSON body keeps its content type (rebuilt without length or encoding)", async () => {
    const response = await fetchOf('{"error":{"code":429}}', 429, { "content-type": "application/json", "content-encoding": "identity" })
    expect(response.status).toBe(429)
    expect(response.headers.get("content-type")).toBe("application/json")
    expect(response.headers.get("content-encoding")).toBeNull()
    expect(await response.json()).toEqual({ error: { code: 429 } })
  })

  it("keeps the url of the response it rebuilt", async () => {
    const original = new Response("not json", { status: 500, statusText: "Internal", headers: { "content-type": "application/json" } })
    Object.defineProperty(original, "url", { value: "http://h/v1beta/models/m:generateContent" })
    const rebuilt = await plainErrorBodies(answering(original))("http://h")
    expect([rebuilt.url, rebuilt.statusText]).toEqual(["http://h/v1beta/models/m:generateContent", "Internal"])
  })
})
