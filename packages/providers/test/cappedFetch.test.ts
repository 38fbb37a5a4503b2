/**
 * The capped `fetch` on a stand-in `fetch`: every boundary of the limit (declared and counted), what is passed
 * through untouched, and the typed error found again in whatever an SDK wraps it in.
 */
import { describe, expect, it } from "@effect/vitest"
import { BodyTooLarge, capped, tooLarge } from "../src/internal/cappedFetch.js"

/**
 * A `fetch` answering chunks of these sizes, one per pull (streamed, no length unless `headers` say), then endless
 * one-byte chunks when `endless`; records whether the body was cancelled.
 */
const serving = (chunks: ReadonlyArray<number>, headers: Record<string, string> = {}, init: ResponseInit = {}, endless = false) => {
  const state = { cancelled: false }
  let next = 0
  const body = new ReadableStream<Uint8Array>({
    pull: (controller) => {
      const size = chunks[next++]
      if (size !== undefined) controller.enqueue(new Uint8Array(size).fill(120))
      else if (endless) controller.enqueue(new Uint8Array(1))
      else controller.close()
    },
    cancel: () => {
      state.cancelled = true
    }
  })
  const response = new Response(body, { status: 200, statusText: "OK", ...init, headers })
  Object.defineProperty(response, "url", { value: "http://127.0.0.1:9/answer" })
  const fetch: typeof globalThis.fetch = () => Promise.resolve(response)
  return { fetch, response, state }
}

const read = async (fetch: typeof globalThis.fetch) => {
  const response = await fetch("http://127.0.0.1:9/answer")
  return (await response.arrayBuffer()).byteLength
}

describe("capped fetch — a declared length", () => {
  it("exactly the limit is read as it came (the same Response); one byte over is refused unread, the body cancelled", async () => {
    const at = serving([10], { "content-length": "10" })
    expect(await capped(10, at.fetch)("http://x")).toBe(at.response)
    const over = serving([11], { "content-length": "11" })
    await expect(capped(10, over.fetch)("http://x")).rejects.toBeInstanceOf(BodyTooLarge)
    expect(over.state.cancelled).toBe(true)
  })

  it("a declared length over the limit without a body (a HEAD answer) is refused as well", async () => {
    const headOnly = new Response(null, { status: 200, headers: { "content-length": "11" } })
    await expect(capped(10, () => Promise.resolve(headOnly))("http://x")).rejects.toBeInstanceOf(BodyTooLarge)
  })

  it("a compressed body is counted even when its declared length is within the limit", async () => {
    const gzip = serving([6, 6], { "content-length": "8", "content-encoding": "gzip" })
    await expect(read(capped(10, gzip.fetch))).rejects.toBeInstanceOf(BodyTooLarge)
    const identity = serving([6], { "content-length": "6", "content-encoding": "identity" })
    expect(await capped(10, identity.fetch)("http://x")).toBe(identity.response)
  })
})

describe("capped fetch — a counted body", () => {
  it("without a length, exactly the limit is read whole; one byte more fails the read and cancels the source", async () => {
    expect(await read(capped(10, serving([4, 6]).fetch))).toBe(10)
    await expect(read(capped(10, serving([4, 6, 1]).fetch))).rejects.toBeInstanceOf(BodyTooLarge)
    // An endless body: nothing more is pulled once the limit is passed.
    const endless = serving([4, 6], {}, {}, true)
    await expect(read(capped(10, endless.fetch))).rejects.toBeInstanceOf(BodyTooLarge)
    expect(endless.state.cancelled).toBe(true)
  })

  it("the counted response keeps status, status text, headers and URL", async () => {
    const response = await capped(10, serving([3], { "x-request-id": "r1" }, { status: 201, statusText: "Created" }).fetch)("http://x")
    expect([response.status, response.statusText, response.headers.get("x-request-id"), response.url]).toEqual([201, "Created", "r1", "http://127.0.0.1:9/answer"])
    expect((await response.arrayBuffer()).byteLength).toBe(3)
  })

  it("hands on the source's chunks as they are: the same arrays, the same boundaries, read only as the reader asks", async () => {
    const sent: Array<Uint8Array> = []
    let pulls = 0
    const body = new ReadableStream<Uint8Array>(
      {
        pull: (controller) => {
          pulls++
          if (sent.length === 3) return controller.close()
          const chunk = new Uint8Array(sent.length + 2)
          sent.push(chunk)
          controller.enqueue(chunk)
        }
      },
      { highWaterMark: 0 }
    )
    const response = await capped(100, () => Promise.resolve(new Response(body)))("http://x")
    const reader = response.body!.getReader()
    const first = await reader.read()
    expect(first.value).toBe(sent[0])
    // Nothing read ahead of the reader: one pull for the one chunk asked for.
    expect(pulls).toBe(1)
    const received = [first.value]
    for (let next = await reader.read(); !next.done; next = await reader.read()) received.push(next.value)
    expect(received).toHaveLength(3)
    received.forEach((chunk, i) => expect(chunk).toBe(sent[i]))
  })

  it("a reader that stops early cancels the source with its reason", async () => {
    let reason: unknown
    const body = new ReadableStream<Uint8Array>({
      pull: (controller) => controller.enqueue(new Uint8Array(1)),
      cancel: (why) => {
        reason = why
      }
    })
    const response = await capped(100, () => Promise.resolve(new Response(body)))("http://x")
    const reader = response.body!.getReader()
    await reader.read()
    await reader.cancel("the SDK was aborted")
    expect(reason).toBe("the SDK was aborted")
  })

  it("a response without a body is handed back as it is", async () => {
    const empty = new Response(null, { status: 204 })
    expect(await capped(10, () => Promise.resolve(empty))("http://x")).toBe(empty)
  })
})

describe("capped fetch — the typed error", () => {
  it("is found through the causes an SDK wraps it in, and names the limit in its largest whole unit", () => {
    const wrapped = (error: unknown, depth: number): unknown => (depth === 0 ? error : new Error("wrapper", { cause: wrapped(error, depth - 1) }))
    expect(new BodyTooLarge(5).message).toBe("the response is larger than the limit of 5 bytes")
    const cases: ReadonlyArray<readonly [number, string]> = [
      [32 * 1024 * 1024, "32 MiB"],
      [64 * 1024, "64 KiB"],
      [1536 * 1024, "1536 KiB"],
      [1000, "1000 bytes"]
    ]
    for (const [limit, shown] of cases) {
      expect(tooLarge(wrapped(new BodyTooLarge(limit), 3))).toMatchObject({
        _tag: "MalformedResponse",
        message: `the response is larger than the limit of ${shown} (maxResponseBytes); it was not read further`
      })
    }
    expect(tooLarge(wrapped(new BodyTooLarge(1), 7))).toBeDefined()
    // A chain deeper than any SDK wraps, a cycle, or no BodyTooLarge at all: nothing found.
    expect(tooLarge(wrapped(new BodyTooLarge(1), 8))).toBeUndefined()
    const cyclic: { cause?: unknown } = {}
    cyclic.cause = cyclic
    expect(tooLarge(cyclic)).toBeUndefined()
    for (const error of [new Error("other"), "text", null, undefined, { cause: "x" }]) expect(tooLarge(error)).toBeUndefined()
  })
})
