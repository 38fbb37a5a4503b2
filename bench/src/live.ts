/**
 * Gemini Live benchmark: what the `GeminiLive` layer and the `LiveAgent` driver add to each tool call of a live
 * turn, next to a client written straight on @google/genai's `live.connect` that answers the same calls by id, on
 * the same emulator, in the same run; and how long a session takes from the server's `goAway` to the first message
 * of its resumed connection (`setupComplete`), next to the raw SDK reconnecting with the same handle.
 *
 * The emulator runs in a child process (this script with `--emulator`), so its own work and garbage do not land
 * on either side's clock. Times are wall times per turn (a live turn is mostly waiting on the socket).
 *
 *   npx -y pnpm@10 bench:live
 */
import { LiveAgent, Registry, Tool } from "@agentfx/core"
import { Fault, Policy } from "@agentfx/emulator"
import { GeminiLive } from "@agentfx/providers"
import { GoogleGenAI, Modality } from "@google/genai"
import type { LiveServerMessage, Session } from "@google/genai"
import { Turn } from "@agentfx/core"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import { performance } from "node:perf_hooks"
import { serve, spawnChild } from "./internal/childEmulator.js"
import { fixed, machine, median, spread, verdict } from "./internal/stats.js"
import * as Table from "./internal/table.js"

const perCallGoalMicros = 1000
const callsPerTurn = 4
const warmUp = 100
const blocks = 15
const perBlock = 40
const goAways = 25
const model = "gemini-live-2.5-flash-preview"

/** "calls" asks for `callsPerTurn` calls, then answers "ok"; "text" answers at once; "leave" answers, then goAway. */
const policy = Policy.fromFunction((request) => {
  const last = request.transcript[request.transcript.length - 1]
  if (last === undefined || Turn.responses(last).length > 0) return { text: "ok" }
  const text = Turn.text(last)
  if (text === "calls") return { calls: Array.from({ length: callsPerTurn }, (_, i) => ({ name: "noop", args: { n: i } })) }
  if (text === "leave") return Policy.withFaults({ text: "ok" }, Fault.goAway("5 seconds"))
  return { text: "ok" }
})

const registry = Registry.unsafeMake(
  Tool.make("noop", { description: "Does nothing", parameters: Schema.Struct({ n: Schema.Number }), handler: ({ n }) => Effect.succeed({ n }) })
)
const declarations = [{ name: "noop", description: "Does nothing", parametersJsonSchema: { type: "object", properties: { n: { type: "number" } }, required: ["n"] } }]

/**
 * A Live client on the SDK alone: answers every call of a `toolCall` at once with the same object the driver sends,
 * and reports turn completions, `goAway` and the resumption handles.
 */
interface RawClient {
  readonly turn: (text: string) => Promise<void>
  readonly handle: () => string | undefined
  readonly close: () => void
}

const rawClient = async (ai: GoogleGenAI, resumptionHandle?: string): Promise<RawClient> => {
  let waiting: (() => void) | undefined
  let handle: string | undefined
  const opened: { session?: Session } = {}
  const onmessage = (message: LiveServerMessage) => {
    if (message.toolCall?.functionCalls !== undefined) {
      opened.session?.sendToolResponse({
        functionResponses: message.toolCall.functionCalls.map((call) => ({ id: call.id!, name: call.name!, response: { n: (call.args as { n: number }).n } }))
      })
    }
    const update = message.sessionResumptionUpdate
    if (update?.resumable === true && update.newHandle !== undefined && update.newHandle !== "") handle = update.newHandle
    if (message.serverContent?.turnComplete === true) {
      const done = waiting
      waiting = undefined
      done?.()
    }
  }
  const session = await ai.live.connect({
    model,
    config: { responseModalities: [Modality.TEXT], tools: [{ functionDeclarations: declarations }], sessionResumption: resumptionHandle === undefined ? {} : { handle: resumptionHandle } },
    callbacks: { onmessage }
  })
  opened.session = session
  return {
    turn: (text) =>
      new Promise<void>((resolve) => {
        waiting = resolve
        session.sendClientContent({ turns: [{ role: "user", parts: [{ text }] }], turnComplete: true })
      }),
    handle: () => handle,
    close: () => session.close()
  }
}

const main = Effect.gen(function* () {
  const address = yield* spawnChild(import.meta.url)
  const ai = new GoogleGenAI({ apiKey: address.apiKey, httpOptions: { baseUrl: address.url } })
  const raw = yield* Effect.promise(() => rawClient(ai))
  const layer = GeminiLive.layer({ apiKey: Redacted.make(address.apiKey), baseUrl: address.url })
  const session = yield* LiveAgent.session({ registry }).pipe(Effect.provide(layer))

  /** µs per turn over `count` turns of `text`. */
  const agentTurns = (text: string, count: number) =>
    Effect.gen(function* () {
      const start = performance.now()
      for (let i = 0; i < count; i++) yield* session.send(text)
      return ((performance.now() - start) * 1000) / count
    })
  const rawTurns = (text: string, count: number) =>
    Effect.promise(async () => {
      const start = performance.now()
      for (let i = 0; i < count; i++) await raw.turn(text)
      return ((performance.now() - start) * 1000) / count
    })

  yield* agentTurns("calls", warmUp)
  yield* rawTurns("calls", warmUp)
  yield* agentTurns("text", warmUp)
  yield* rawTurns("text", warmUp)
  const figures = { agentCalls: [] as Array<number>, rawCalls: [] as Array<number>, agentText: [] as Array<number>, rawText: [] as Array<number> }
  for (let block = 0; block < blocks; block++) {
    figures.agentCalls.push(yield* agentTurns("calls", perBlock))
    figures.rawCalls.push(yield* rawTurns("calls", perBlock))
    figures.agentText.push(yield* agentTurns("text", perBlock))
    figures.rawText.push(yield* rawTurns("text", perBlock))
  }
  const perCall = figures.agentCalls.map((agent, i) => (agent - figures.agentText[i]! - (figures.rawCalls[i]! - figures.rawText[i]!)) / callsPerTurn)
  const perTurn = figures.agentText.map((agent, i) => agent - figures.rawText[i]!)

  // goAway → the first message of the resumed connection, through the driver and with the SDK alone.
  const agentResume: Array<number> = []
  const events = yield* session.subscribe
  for (let i = 0; i < goAways; i++) {
    const resumed = yield* Deferred.make<number>()
    let goAwayAt = 0
    yield* Effect.fork(
      Stream.runForEach(
        events.pipe(Stream.takeUntil((event) => event._tag === "Connected")),
        (event) =>
          Effect.suspend(() => {
            if (event._tag === "GoAway") goAwayAt = performance.now()
            return event._tag === "Connected" ? Deferred.succeed(resumed, performance.now() - goAwayAt) : Effect.void
          })
      )
    )
    yield* session.send("leave")
    agentResume.push((yield* Deferred.await(resumed)) * 1000)
  }
  const rawResume: Array<number> = []
  let current = raw
  for (let i = 0; i < goAways; i++) {
    yield* Effect.promise(() => current.turn("text"))
    const handle = current.handle()
    const start = performance.now()
    const next = yield* Effect.promise(() => rawClient(ai, handle))
    rawResume.push((performance.now() - start) * 1000)
    current.close()
    current = next
  }
  current.close()

  Table.print({
    title: `Gemini Live: what the layer and the driver add (emulator on 127.0.0.1, ${callsPerTurn} calls per turn)`,
    columns: [
      { header: "figure" },
      { header: "SDK alone, µs", align: "right" },
      { header: "agentfx, µs", align: "right" },
      { header: "added, µs: median (min–max)", align: "right" },
      { header: "goal" }
    ],
    rows: [
      ["turn with text only", fixed(median(figures.rawText)), fixed(median(figures.agentText)), spread(perTurn, 0), ""],
      [
        `turn with ${callsPerTurn} tool calls`,
        fixed(median(figures.rawCalls)),
        fixed(median(figures.agentCalls)),
        spread(perCall, 0),
        verdict(median(perCall) <= perCallGoalMicros, `≤ ${perCallGoalMicros} µs per call`)
      ],
      ["goAway → resumed connection's setupComplete", fixed(median(rawResume)), spread(agentResume, 0), fixed(median(agentResume) - median(rawResume)), ""]
    ],
    notes: [
      `Per call: (agentfx turn with calls − agentfx text turn − (SDK turn with calls − SDK text turn)) / ${callsPerTurn}, per block; the table shows the median and the min–max over blocks.`,
      "The SDK-alone client answers each call inside its message callback with the same object; agentfx decodes the arguments, runs the handler in its own fiber, records the call and publishes its events.",
      `Turns: median of ${blocks} blocks of ${perBlock} turns per side, interleaved block by block, after ${warmUp} warm-up turns of each kind per side.`,
      `goAway: ${goAways} times; agentfx from the GoAway event to Connected (it moves at the quiet moment after the turn, with the last handle); the SDK from its own reconnect with the handle to setupComplete.`,
      machine()
    ]
  })
}).pipe(Effect.scoped)

Effect.runPromise(process.argv[2] === "--emulator" ? serve({ policy }) : main).catch((error: unknown) => {
  console.error(error)
  process.exitCode = 1
})
