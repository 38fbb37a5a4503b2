import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { Emulator, Fault, Policy } from "../src/index.js"

const body = JSON.stringify({ contents: [{ role: "user", parts: [{ text: "hi" }] }] })

/** The same request through `fetch`, and what came back: status, the headers that matter, the body as text. */
const exchange = (fetch: typeof globalThis.fetch, emulator: Emulator.Service, method: "generateContent" | "streamGenerateContent?alt=sse", signal?: AbortSignal) =>
  Effect.promise(async () => {
    const response = await fetch(`${emulator.geminiBaseUrl}/v1beta/models/gemini-2.5-flash:${method}`, {
      method: "POST",
      headers: { "x-goog-api-key": emulator.apiKey, "content-type": "application/json" },
      body,
      ...(signal === undefined ? {} : { signal })
    })
    return { status: response.status, type: response.headers.get("content-type"), text: await response.text() }
  })

/** What `fetch` rejects with, or what reading the body throws: name, message and the cause's message. */
const failure = (run: () => Promise<unknown>) =>
  Effect.promise(() =>
    run().then(
      () => undefined,
      (error: Error) => ({ name: error.name, message: error.message, cause: error.cause instanceof Error ? error.cause.message : undefined })
    )
  )

const post = (fetch: typeof globalThis.fetch, emulator: Emulator.Service, method: string, init: RequestInit = {}) =>
  fetch(`${emulator.geminiBaseUrl}/v1beta/models/m:${method}`, { method: "POST", headers: { "x-goog-api-key": emulator.apiKey }, body, ...init })

// Answers without signatures and with a fixed id, so that the two transports' bodies can be compared byte for byte.
const reply = Policy.fromFunction(() => ({ text: "Hello there, world.", calls: [{ name: "get_weather", args: { city: "Paris" } }] }))

describe("Emulator — the in-process fetch", () => {
  it.scoped("answers byte for byte what the socket answers, plain and streamed, and records the requests alike", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({ policy: reply, signatures: false })
      const sameIds = (text: string) => text.replace(/emulator-\d+/g, "emulator-N").replace(/call_\d+_/g, "call_N_")
      for (const method of ["generateContent", "streamGenerateContent?alt=sse"] as const) {
        const socket = yield* exchange(globalThis.fetch, emulator, method)
        const inProcess = yield* exchange(emulator.fetch, emulator, method)
        expect({ ...inProcess, text: sameIds(inProcess.text) }).toEqual({ ...socket, text: sameIds(socket.text) })
      }
      const recorded = yield* emulator.requests
      expect(recorded.map((request) => [request.path, request.status, request.outcome, request.apiKey])).toEqual([
        ["/v1beta/models/gemini-2.5-flash:generateContent", 200, "completed", "valid"],
        ["/v1beta/models/gemini-2.5-flash:generateContent", 200, "completed", "valid"],
        ["/v1beta/models/gemini-2.5-flash:streamGenerateContent", 200, "completed", "valid"],
        ["/v1beta/models/gemini-2.5-flash:streamGenerateContent", 200, "completed", "valid"]
      ])
    }))

  it.scoped("fails as undici does: a drop before the answer is `fetch failed`, a drop mid-stream `terminated`", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({ policy: reply })
      yield* emulator.inject(Fault.disconnect)
      const before = yield* failure(() => post(emulator.fetch, emulator, "generateContent"))
      expect(before).toEqual({ name: "TypeError", message: "fetch failed", cause: "other side closed" })
      yield* emulator.inject(Fault.dropMidStream(1))
      const response = yield* Effect.promise(() => post(emulator.fetch, emulator, "streamGenerateContent?alt=sse"))
      expect(response.status).toBe(200)
      const during = yield* failure(() => response.text())
      expect(during).toMatchObject({ name: "TypeError", message: "terminated" })
      expect((yield* emulator.requests).map((request) => request.outcome)).toEqual(["dropped", "dropped"])
    }))

  it.scoped("an abort ends a stalled request with an AbortError, and the emulator records it as aborted", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({ policy: reply })
      yield* emulator.inject(Fault.stall)
      const controller = new AbortController()
      const pending = post(emulator.fetch, emulator, "generateContent", { signal: controller.signal })
      yield* emulator.awaitRequests(1)
      controller.abort()
      expect(yield* failure(() => pending)).toMatchObject({ name: "AbortError" })
      expect(yield* emulator.awaitOutcome(0)).toBe("aborted")
    }))

  it.scoped("requests made back to back let the event loop turn, as a socket's do: a timer due meanwhile fires", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({ policy: reply, record: false })
      // Answers that resolved on microtasks alone kept the loop from ever reaching its timers while requests went on.
      const made = yield* Effect.promise(async () => {
        let fired = false
        const timer = setTimeout(() => (fired = true), 0)
        let count = 0
        while (!fired && count < 500) {
          await (await post(emulator.fetch, emulator, "generateContent")).text()
          count++
        }
        clearTimeout(timer)
        return count
      })
      expect(made).toBeLessThan(500)
    }))

  it.effect("a request still open when the emulator stops fails like a closed connection", () =>
    Effect.gen(function* () {
      const pending = yield* Effect.scoped(
        Effect.gen(function* () {
          const emulator = yield* Emulator.make({ policy: reply })
          yield* emulator.inject(Fault.stall)
          const request = post(emulator.fetch, emulator, "generateContent")
          yield* emulator.awaitRequests(1)
          return request
        })
      )
      expect(yield* failure(() => pending)).toEqual({ name: "TypeError", message: "fetch failed", cause: "other side closed" })
    }))
})

describe("Emulator — what the in-process fetch takes", () => {
  const path = "/v1beta/models/m:generateContent"

  it.scoped("a body as a string, bytes (a view into a larger buffer too) or an ArrayBuffer reaches the handler as the same text", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({ policy: reply, signatures: false })
      const bytes = new TextEncoder().encode(`#${body}#`)
      const bodies: ReadonlyArray<RequestInit["body"]> = [body, bytes.subarray(1, bytes.length - 1), new TextEncoder().encode(body).buffer]
      const statuses = yield* Effect.forEach(bodies, (given) => Effect.promise(() => post(emulator.fetch, emulator, "generateContent", { body: given }).then((response) => response.status)))
      expect(statuses).toStrictEqual([200, 200, 200])
      expect((yield* emulator.requests).map((request) => request.body)).toStrictEqual([JSON.parse(body), JSON.parse(body), JSON.parse(body)])
    }))

  it.scoped("no body is an empty one; no method is GET; a URL object and a lower-case method are read as fetch reads them", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({ policy: reply, signatures: false })
      const bare = yield* Effect.promise(async () => {
        const response = await emulator.fetch(`${emulator.url}/nothing/here?x=1`)
        return { status: response.status, body: await response.json() }
      })
      expect(bare).toStrictEqual({ status: 404, body: { error: { code: 404, message: "agentfx emulator: no route for GET /nothing/here", status: "NOT_FOUND" } } })
      const posted = yield* Effect.promise(() =>
        emulator.fetch(new URL(`${emulator.url}${path}`), { method: "post", headers: new Headers({ "X-Goog-Api-Key": emulator.apiKey }), body }).then((response) => response.status)
      )
      expect(posted).toBe(200)
      const recorded = yield* emulator.requests
      expect(recorded.map((request) => [request.method, request.path, request.apiKey, request.body])).toStrictEqual([
        ["GET", "/nothing/here", "unchecked", undefined],
        ["POST", path, "valid", JSON.parse(body)]
      ])
    }))

  it.scoped("refuses a Request, a body of another kind and an aborted signal before the handler sees anything", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({ policy: reply })
      const url = `${emulator.url}${path}`
      expect(yield* failure(() => emulator.fetch(new Request(url, { method: "POST", body })))).toStrictEqual({
        name: "TypeError",
        message: "the in-process emulator takes a URL and RequestInit, not a Request",
        cause: undefined
      })
      expect(yield* failure(() => emulator.fetch(url, { method: "POST", body: new URLSearchParams({ a: "b" }) }))).toStrictEqual({
        name: "TypeError",
        message: "the in-process emulator takes a string or byte body",
        cause: undefined
      })
      expect(yield* failure(() => emulator.fetch(url, { method: "POST", body, signal: AbortSignal.abort() }))).toStrictEqual({
        name: "AbortError",
        message: "This operation was aborted",
        cause: undefined
      })
      expect(yield* emulator.received).toBe(0)
    }))
})

/** The ids of an answer, made the same for every request (its index is in them). */
const sameIds = (text: string) => text.replace(/emulator-\d+/g, "emulator-N").replace(/call_\d+_/g, "call_N_")

/** The body as the writes that made it (the in-process stream hands each write over as one chunk), and how it ended. */
const writesOf = (response: Response) =>
  Effect.promise(async () => {
    const reader = response.body!.getReader()
    const decoder = new TextDecoder()
    const writes: Array<string> = []
    for (;;) {
      const read = await reader.read().then(
        (result) => result,
        (error: Error) => ({ name: error.name, message: error.message, cause: error.cause instanceof Error ? error.cause.message : undefined })
      )
      if ("name" in read) return { writes, end: read }
      if (read.done) return { writes, end: "done" as const }
      writes.push(sameIds(decoder.decode(read.value)))
    }
  })

describe("Emulator — an in-process request the client gives up on", () => {
  it.scoped("aborted after the emulator answered but before the answer was handed over, it fails with an AbortError; the emulator saw it completed", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({ policy: reply })
      const controller = new AbortController()
      const pending = post(emulator.fetch, emulator, "generateContent", { signal: controller.signal })
      controller.abort()
      expect(yield* failure(() => pending)).toStrictEqual({ name: "AbortError", message: "This operation was aborted", cause: undefined })
      expect(yield* emulator.awaitOutcome(0)).toBe("completed")
    }))

  it.scoped("a stream the client cancels (here one stalled after its first frame) ends as aborted", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({ policy: reply })
      yield* emulator.inject(Fault.stallMidStream(1))
      const response = yield* Effect.promise(() => post(emulator.fetch, emulator, "streamGenerateContent?alt=sse"))
      yield* Effect.promise(() => response.body!.cancel())
      expect(yield* emulator.awaitOutcome(0)).toBe("aborted")
    }))
})

describe("Emulator — the writes of an answer, as the in-process fetch shows them one by one", () => {
  const streamed = (emulator: Emulator.Service, query = "?alt=sse") =>
    Effect.promise(() => post(emulator.fetch, emulator, `streamGenerateContent${query}`))
  const frames = (text: string) => text.split(/(?<=\r\n\r\n)/)

  it.scoped("SplitChunks writes each frame of a stream in two halves, split at its middle; without it each frame is one write", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({ policy: reply, signatures: false })
      const whole = yield* writesOf(yield* streamed(emulator))
      yield* emulator.inject(Fault.splitChunks)
      const split = yield* writesOf(yield* streamed(emulator))
      const expected = frames(whole.writes.join(""))
      expect(whole.end).toBe("done")
      expect(whole.writes).toStrictEqual(frames(whole.writes.join("")))
      expect(split).toStrictEqual({
        writes: expected.flatMap((frame) => [frame.slice(0, Math.floor(frame.length / 2)), frame.slice(Math.floor(frame.length / 2))]),
        end: "done"
      })
    }))

  it.scoped("ErrorMidStream sends the frames before it (all of them when it is past the last), then the error as its own frame, and ends the stream", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({ policy: reply, signatures: false })
      const whole = yield* writesOf(yield* streamed(emulator))
      yield* emulator.inject(Fault.errorMidStream(1, Fault.overloaded()))
      const cut = yield* writesOf(yield* streamed(emulator))
      expect(whole.writes).toHaveLength(4)
      expect(cut).toStrictEqual({
        writes: [
          whole.writes[0]!,
          `data: ${JSON.stringify({ error: { code: 503, message: "The model is overloaded. Please try again later.", status: "UNAVAILABLE" } })}\r\n\r\n`
        ],
        end: "done"
      })
      // Past the last frame: every frame, then the error.
      yield* emulator.inject(Fault.errorMidStream(99, Fault.overloaded()))
      const late = yield* streamed(emulator)
      expect([late.headers.get("content-type"), late.headers.get("cache-control")]).toStrictEqual(["text/event-stream", "no-cache"])
      expect(yield* writesOf(late)).toStrictEqual({ writes: [...whole.writes, cut.writes[1]], end: "done" })
      expect((yield* emulator.requests).map((request) => [request.status, request.outcome])).toStrictEqual([
        [200, "completed"],
        [200, "completed"],
        [200, "completed"]
      ])
    }))

  it.scoped("a drop mid-answer of generateContent sends the head and half the body, then closes: the client reads `terminated`", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({ policy: reply, signatures: false })
      const whole = sameIds(yield* Effect.promise(() => post(emulator.fetch, emulator, "generateContent").then((response) => response.text())))
      yield* emulator.inject(Fault.dropMidStream(1))
      const response = yield* Effect.promise(() => post(emulator.fetch, emulator, "generateContent"))
      expect([response.status, response.headers.get("content-type"), response.headers.get("content-length")]).toStrictEqual([200, "application/json; charset=UTF-8", null])
      expect(yield* writesOf(response)).toStrictEqual({ writes: [whole.slice(0, Math.floor(whole.length / 2))], end: { name: "TypeError", message: "terminated", cause: "other side closed" } })
      expect((yield* emulator.requests).map((request) => [request.status, request.outcome])).toStrictEqual([
        [200, "completed"],
        [200, "dropped"]
      ])
    }))
})
