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
