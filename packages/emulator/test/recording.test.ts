import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Exit } from "effect"
import type { Scope } from "effect"
import OpenAIClient from "openai"
import { WebSocket } from "ws"
import { Emulator, Policy } from "../src/index.js"

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

/** The parts of a Live server frame these tests read. */
interface ServerFrame {
  readonly toolCall?: { readonly functionCalls: ReadonlyArray<{ readonly id: string; readonly name: string }> }
  readonly serverContent?: { readonly turnComplete?: boolean; readonly modelTurn?: { readonly parts: ReadonlyArray<{ readonly text?: string }> } }
  readonly sessionResumptionUpdate?: { readonly newHandle: string; readonly resumable: boolean }
}

/** A raw Live connection: send frames, wait for a server frame that matches. */
const live = (
  emulator: Emulator.Service
): Effect.Effect<{ send: (frame: unknown) => void; until: (match: (frame: ServerFrame) => boolean) => Effect.Effect<ServerFrame> }, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.promise(
      () =>
        new Promise<WebSocket>((resolve) => {
          const ws = new WebSocket(`${emulator.url.replace("http", "ws")}/ws/google.ai.generativelanguage.v1beta.GenerativeService.BidiGenerateContent?key=${emulator.apiKey}`)
          ws.on("open", () => resolve(ws))
        })
    ),
    (ws) => Effect.sync(() => ws.close())
  ).pipe(
    Effect.map((ws) => {
      const frames: Array<ServerFrame> = []
      const waiters = new Set<() => void>()
      ws.on("message", (data) => {
        frames.push(JSON.parse(data.toString()) as ServerFrame)
        for (const waiter of [...waiters]) waiter()
      })
      return {
        send: (frame: unknown) => ws.send(JSON.stringify(frame)),
        until: (match: (frame: ServerFrame) => boolean) =>
          Effect.promise(
            () =>
              new Promise<ServerFrame>((resolve) => {
                const check = () => {
                  const found = frames.find(match)
                  if (found === undefined) return
                  waiters.delete(check)
                  resolve(found)
                }
                waiters.add(check)
                check()
              })
          )
      }
    })
  )

const turnComplete = (frame: ServerFrame) => frame.serverContent?.turnComplete === true
const ask = (text: string) => ({ clientContent: { turns: [{ role: "user", parts: [{ text }] }], turnComplete: true } })

describe("the emulator keeps a bounded recording of Live connections", () => {
  it.scoped("record: false keeps no frames and no responses of a Live connection, which still works as usual", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({ record: false, policy: Policy.script([{ calls: [{ name: "f", args: {} }] }, { text: "done" }]) })
      const client = yield* live(emulator)
      client.send({ setup: { model: "models/m", tools: [{ functionDeclarations: [{ name: "f", description: "f" }] }] } })
      client.send(ask("go"))
      const call = (yield* client.until((frame) => frame.toolCall !== undefined)).toolCall!.functionCalls[0]!
      client.send({ toolResponse: { functionResponses: [{ id: call.id, name: "f", response: { output: 1 } }] } })
      yield* client.until(turnComplete)
      const [record] = yield* emulator.live
      expect(record!.received).toEqual([])
      expect(record!.sent).toEqual([])
      expect(record!.responses).toEqual([])
      expect(record!.droppedFrames).toBeGreaterThanOrEqual(6)
      expect(record!.model).toBe("m")
    }))

  it.scoped("a Live record keeps its last maxLiveFrames frames each way, and about maxLiveFrameChars of their text", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({ policy: Policy.fromFunction(() => ({ text: "ok" })) })
      const client = yield* live(emulator)
      client.send({ setup: { model: "models/m" } })
      const extra = 200
      for (let i = 0; i < Emulator.maxLiveFrames + extra; i++) client.send({ realtimeInput: { audio: { data: "AAAA", mimeType: "audio/pcm;rate=16000" } } })
      client.send(ask("last"))
      yield* client.until(turnComplete)
      const [record] = yield* emulator.live
      expect(record!.received).toHaveLength(Emulator.maxLiveFrames)
      expect(record!.received.at(-1)).toEqual(ask("last"))
      expect(record!.droppedFrames).toBe(extra + 2)

      const big = yield* live(emulator)
      big.send({ setup: { model: "models/m" } })
      const data = "A".repeat(100_000)
      for (let i = 0; i < 30; i++) big.send({ realtimeInput: { audio: { data, mimeType: "audio/pcm;rate=16000" } } })
      big.send(ask("last"))
      yield* big.until(turnComplete)
      const second = (yield* emulator.live)[1]!
      const kept = second.received.reduce<number>((sum, frame) => sum + JSON.stringify(frame).length, 0)
      expect(kept).toBeLessThanOrEqual(Emulator.maxLiveFrameChars)
      expect(kept).toBeGreaterThan(Emulator.maxLiveFrameChars - 2 * data.length)
      expect(second.received.at(-1)).toEqual(ask("last"))
    }))

  it.scoped("a resumption handle gives the history as it was when issued, not as the session went on after it", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({ policy: Policy.fromFunction((request) => ({ text: `turns ${request.transcript.length}` })) })
      const client = yield* live(emulator)
      client.send({ setup: { model: "models/m", sessionResumption: {} } })
      client.send(ask("one"))
      const first = (yield* client.until((frame) => frame.sessionResumptionUpdate?.resumable === true)).sessionResumptionUpdate!.newHandle
      client.send(ask("two"))
      yield* client.until((frame) => frame.sessionResumptionUpdate?.resumable === true && frame.sessionResumptionUpdate.newHandle !== first)
      const resumed = yield* live(emulator)
      resumed.send({ setup: { model: "models/m", sessionResumption: { handle: first } } })
      resumed.send(ask("again"))
      const text = yield* resumed.until((frame) => frame.serverContent?.modelTurn !== undefined)
      expect(text.serverContent!.modelTurn!.parts[0]!.text).toBe("turns ")
      yield* resumed.until(turnComplete)
      const [, record] = yield* emulator.live
      expect(record!.resumedFrom).toBe(first)
      const words = (record!.sent as ReadonlyArray<ServerFrame>).flatMap((frame) => (frame.serverContent?.modelTurn === undefined ? [] : [frame.serverContent.modelTurn.parts[0]!.text]))
      expect(words.join("")).toBe("turns 3")
    }))
})
