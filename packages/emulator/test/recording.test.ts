import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Exit } from "effect"
import OpenAIClient from "openai"
import { Emulator } from "../src/index.js"

const padding = "x".repeat(20_000)

/** `count` chat requests (numbered from `from`), each carrying a 20 kB message, one after the other. */
const chat = (emulator: Emulator.Service, count: number, from = 0) =>
  Effect.promise(async () => {
    const client = new OpenAIClient({ apiKey: emulator.apiKey, baseURL: emulator.openAIBaseUrl(), maxRetries: 0 })
    for (let i = from; i < from + count; i++) {
      await client.chat.completions.create({ model: "gpt-4.1-mini", messages: [{ role: "user", content: `hello ${i} ${padding}` }] })
    }
  })

const retainedBytes = (records: ReadonlyArray<Emulator.Recorded>) => JSON.stringify(records).length

describe("the emulator keeps a bounded recording of requests", () => {
  it.scoped("by default the last 100 requests, with bodies: what it holds stays flat as requests go on", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make()
      yield* chat(emulator, 120)
      const after120 = yield* emulator.requests
      yield* chat(emulator, 130, 120)
      const after250 = yield* emulator.requests
      expect(yield* emulator.received).toBe(250)
      expect(after250.map((record) => record.index)).toStrictEqual(Array.from({ length: Emulator.defaultRecordMax }, (_, i) => 150 + i))
      expect(after250.at(-1)!.request!.transcript).toHaveLength(1)
      expect(JSON.stringify(after250.at(-1)!.body)).toContain("hello 249")
      // Same number of records of the same size: 250 requests hold what 120 did.
      expect(Math.abs(retainedBytes(after250) - retainedBytes(after120))).toBeLessThan(retainedBytes(after120) / 100)
      expect(retainedBytes(after250)).toBeLessThan(Emulator.defaultRecordMax * (padding.length + 4_000) * 2)
      // A request no longer recorded is said to be so; a recorded one still gives its outcome.
      const gone = yield* Effect.exit(emulator.awaitOutcome(3))
      expect(Exit.isFailure(gone) && Cause.pretty(gone.cause)).toContain("request 3 is no longer recorded (the emulator keeps the last 100: record.max)")
      expect(yield* emulator.awaitOutcome(249)).toBe("completed")
    })
  )

  it.scoped("record: { max, bodies: false } keeps that many, without bodies; record: false keeps nothing but still counts", () =>
    Effect.gen(function* () {
      const small = yield* Emulator.make({ record: { max: 3, bodies: false } })
      yield* chat(small, 10)
      const kept = yield* small.requests
      expect(kept.map((record) => record.index)).toStrictEqual([7, 8, 9])
      expect(kept.every((record) => record.body === undefined && record.request === undefined && record.status === 200)).toBe(true)
      expect(JSON.stringify(kept)).not.toContain(padding.slice(0, 100))

      const none = yield* Emulator.make({ record: false })
      yield* chat(none, 5)
      expect(yield* none.requests).toStrictEqual([])
      expect(yield* none.received).toBe(5)
      expect(yield* none.awaitRequests(5)).toStrictEqual([])
    })
  )
})
