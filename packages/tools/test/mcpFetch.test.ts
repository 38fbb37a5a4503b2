import { describe, expect, it } from "@effect/vitest"
import { Effect, FastCheck as fc } from "effect"
import type { Size } from "../src/internal/mcpBound.js"
import { boundedEvents, boundedFetch } from "../src/internal/mcpFetch.js"
import { loopback } from "./support/loopback.js"

// What an MCP server's Streamable HTTP transport reads, bounded per message: event streams passed on one whole
// event at a time, JSON bodies read up to the bound.

const text = (bytes: Uint8Array) => Buffer.from(bytes).toString("utf8")

/**
 * Runs `chunks` through `boundedEvents`: what came out, in the pieces it came out in, what was dropped, and whether
 * the source was cancelled. With `endless`, `x` follows the chunks for ever: only a cancel ends it.
 */
const throughEvents = async (chunks: ReadonlyArray<string>, limit: number, answer?: (size: Size) => Uint8Array, endless = false) => {
  const dropped: Array<Size> = []
  let cancelled = false
  let onCancel: () => void = () => {}
  const cancel = new Promise<void>((resolve) => (onCancel = resolve))
  let next = 0
  const source = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (next < chunks.length) controller.enqueue(Buffer.from(chunks[next++]!))
      else if (endless) controller.enqueue(Buffer.from("x"))
      else controller.close()
    },
    cancel() {
      cancelled = true
      onCancel()
    }
  })
  const out: Array<string> = []
  const reader = source.pipeThrough(boundedEvents(limit, { answer, dropped: (size) => dropped.push(size) })).getReader()
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    out.push(text(value))
  }
  // The cancel reaches the source once the pipe sees its end: an endless source is waited for until it has.
  if (endless) await cancel
  return { out, dropped, cancelled }
}

/** `text` cut at `cuts`. */
const cut = (whole: string, cuts: ReadonlyArray<number>) => {
  const at = [...new Set(cuts.map((n) => Math.min(n, whole.length)))].sort((a, b) => a - b)
  return [...at, whole.length].map((end, i, all) => whole.slice(i === 0 ? 0 : all[i - 1], end))
}

describe("boundedEvents", () => {
  it.effect.prop(
    "events within the bound pass unchanged, whatever line ends they use and however they are cut",
    [fc.array(fc.tuple(fc.string({ maxLength: 20 }).map((data) => data.replace(/[\r\n]/g, "")), fc.constantFrom("\n", "\r\n", "\r")), { maxLength: 6 }), fc.array(fc.nat(), { maxLength: 6 })],
    ([events, cuts]) =>
      Effect.promise(async () => {
        const whole = events.map(([data, end]) => `data: ${data}${end}${end}`).join("")
        const { out, dropped } = await throughEvents(cut(whole, cuts), 64)
        expect(out.join("")).toBe(whole)
        expect(dropped).toEqual([])
      })
  )

  it.effect("each event is passed on whole, once it has ended", () =>
    Effect.promise(async () => {
      const { out } = await throughEvents(["data: a", "bc\n", "\ndata: d\n\nda", "ta: e\n\n"], 64)
      expect(out).toEqual(["data: a", "bc\n", "\n", "data: d\n\n", "da", "ta: e\n\n"])
    }))

  it.effect("without an answer, an event past the bound is counted to its end and dropped; the events after it pass", () =>
    Effect.promise(async () => {
      const big = `data: ${"x".repeat(40)}\r\n\r\n`
      const { out, dropped, cancelled } = await throughEvents(["data: 1\n\n", big.slice(0, 25), big.slice(25), "data: 2\n\n"], 20)
      expect(out.join("")).toBe("data: 1\n\n\ndata: 2\n\n")
      expect(dropped).toEqual([{ bytes: big.length - 1, exact: true, limit: 20 }])
      expect(cancelled).toBe(false)
    }))

  it.effect("with an answer, an event past the bound ends the stream with the answer, and the source (endless here) is cancelled", () =>
    Effect.promise(async () => {
      const { out, dropped, cancelled } = await throughEvents(
        ["data: 1\n\n", `data: ${"x".repeat(15)}`],
        20,
        (size) => Buffer.from(`data: answer ${size.bytes} ${size.exact}\n\n`),
        true
      )
      // Reading stopped at the first piece past the bound: 21 bytes of the event.
      expect(out.join("")).toBe("data: 1\n\ndata: answer 21 false\n\n")
      expect(dropped).toEqual([])
      expect(cancelled).toBe(true)
    }))

  it.effect("a stream that ends inside an event passes what it held on; one that ends inside a dropped event says its size", () =>
    Effect.promise(async () => {
      expect((await throughEvents(["data: 1\n\ndata: par"], 20)).out.join("")).toBe("data: 1\n\ndata: par")
      expect((await throughEvents(["data: 1\n\n", "y".repeat(30)], 20)).dropped).toEqual([{ bytes: 30, exact: true, limit: 20 }])
    }))
})

describe("boundedFetch", () => {
  const request = (id: number) => ({ method: "POST", body: JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call" }) })

  it.scopedLive("a JSON answer with no length given is read up to the bound, then answered for with the request's id; headers are kept", () =>
    Effect.gen(function* () {
      const body = `{"jsonrpc":"2.0","id":3,"result":"${"x".repeat(3000)}"}`
      const server = yield* loopback({
        "/mcp": (_, response) => {
          response.writeHead(200, { "content-type": "application/json", "mcp-session-id": "s1" })
          response.write(body.slice(0, 100))
          response.end(body.slice(100))
        }
      })
      const fetch = boundedFetch(1000, () => undefined)
      const response = yield* Effect.promise(() => fetch(`${server.origin}/mcp`, request(3)))
      expect(response.headers.get("mcp-session-id")).toBe("s1")
      expect(response.headers.get("content-type")).toBe("application/json")
      const answer = (yield* Effect.promise(() => response.json())) as { id: number; error: { data: { agentfxTooLarge: Size } } }
      expect(answer.id).toBe(3)
      expect(answer.error.data.agentfxTooLarge).toMatchObject({ exact: false, limit: 1000 })
      expect(answer.error.data.agentfxTooLarge.bytes).toBeGreaterThan(1000)
      // Within the bound, the body is the server's, and so is its URL.
      const small = boundedFetch(10_000, () => undefined)
      const whole = yield* Effect.promise(() => small(`${server.origin}/mcp`, request(3)))
      expect(yield* Effect.promise(() => whole.text())).toBe(body)
      expect(whole.url).toBe(`${server.origin}/mcp`)
    }))

  it.scopedLive("issue 35 item 18: an error's body is read up to 64 KiB and said in one line; a redirect is passed on as it came", () =>
    Effect.gen(function* () {
      let sent = 0
      const server = yield* loopback({
        "/page": (_, response) =>
          void response.writeHead(404, { "content-type": "text/html" }).end("<!DOCTYPE html>\n<html>\n<head><title>Error</title></head>\n<body>\n<pre>Cannot POST /page</pre>\n</body>\n</html>\n"),
        // An endless error body: only what is read of it is sent.
        "/endless": (_, response) => {
          response.writeHead(500, { "content-type": "text/plain" })
          const more = () => {
            while (sent < 100 * 1024 * 1024) {
              sent += 16 * 1024
              if (!response.write("e".repeat(16 * 1024))) return void response.once("drain", more)
            }
            response.end()
          }
          response.on("error", () => undefined)
          more()
        },
        "/moved": (_, response) => void response.writeHead(307, { location: "/page" }).end("go")
      })
      const fetch = boundedFetch(1000, () => undefined)
      const page = yield* Effect.promise(() => fetch(`${server.origin}/page`, request(1)))
      expect(page.status).toBe(404)
      expect(yield* Effect.promise(() => page.text())).toBe("an HTML page: Cannot POST /page")
      const endless = yield* Effect.promise(() => fetch(`${server.origin}/endless`, request(1)))
      expect(endless.status).toBe(500)
      expect(yield* Effect.promise(() => endless.text())).toBe(`${"e".repeat(199)}…`)
      expect(sent).toBeLessThan(100 * 1024 * 1024)
      const moved = yield* Effect.promise(() => fetch(`${server.origin}/moved`, { ...request(1), redirect: "manual" }))
      expect(moved.status).toBe(307)
      expect(yield* Effect.promise(() => moved.text())).toBe("go")
    }))

  it.scopedLive("an event of the server's own stream (no request) past the bound is dropped and said", () =>
    Effect.gen(function* () {
      const server = yield* loopback({
        "/mcp": (_, response) => void response.writeHead(200, { "content-type": "text/event-stream" }).end(`data: ${"n".repeat(2000)}\n\ndata: {"ok":1}\n\n`)
      })
      const said: Array<string> = []
      const fetch = boundedFetch(1000, (why) => said.push(why))
      const response = yield* Effect.promise(() => fetch(`${server.origin}/mcp`, { method: "GET" }))
      expect(yield* Effect.promise(() => response.text())).toBe(`data: {"ok":1}\n\n`)
      expect(said).toEqual(["an event of 2.0 KiB, more than the 1000 bytes one message may hold, which was dropped"])
    }))
})
