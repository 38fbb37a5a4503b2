/**
 * Provider-layer benchmark: what the Gemini and GLM `LanguageModel` layers add to a model turn, next to calling
 * the same SDK directly with the same wire body, against the same emulator, in the same run. Also the latency to
 * the first text delta of a stream, through the layer and straight from the SDK.
 *
 * The emulator runs in a child process (this script with `--emulator`), so its own work and garbage do not land
 * on either side's clock.
 *
 *   pnpm build && pnpm --filter @agentfx/bench providers
 */
import type { LanguageModel } from "@agentfx/core"
import { Turn } from "@agentfx/core"
import type { FunctionCall } from "@agentfx/core"
import { Gemini, Glm } from "@agentfx/providers"
import { Emulator, Policy } from "@agentfx/emulator"
import { GoogleGenAI } from "@google/genai"
import type { GenerateContentParameters } from "@google/genai"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"
import { performance } from "node:perf_hooks"
import OpenAI from "openai"
import type { ChatCompletionCreateParamsNonStreaming } from "openai/resources/chat/completions"
import { serve, spawnChild } from "./internal/childEmulator.js"
import { fixed, machine, median, verdict } from "./internal/stats.js"
import * as Table from "./internal/table.js"

const turnGoalMicros = 300
const firstDeltaGoalMicros = 1000
const warmUp = 300
const blocks = 25
const perBlock = 80

const declarations = [
  { name: "get_weather", description: "Current weather", parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } },
  { name: "get_time", description: "Local time", parameters: { type: "object", properties: { tz: { type: "string" } }, required: ["tz"] } },
  { name: "send_email", description: "Sends an e-mail", parameters: { type: "object", properties: { to: { type: "string" }, body: { type: "string" } }, required: ["to", "body"] } }
]

const call = (id: string, name: string, args: Record<string, unknown>): FunctionCall.FunctionCall => ({ _tag: "FunctionCall", id, name, args })

/** A conversation two rounds in: what a turn in the middle of a run sends. */
const transcript: ReadonlyArray<Turn.Turn> = [
  Turn.user("What is the weather and the time in Paris and Oslo? Then e-mail me a summary."),
  { role: "model", parts: [call("h1", "get_weather", { city: "Paris" }), call("h2", "get_weather", { city: "Oslo" })] },
  {
    role: "user",
    parts: [
      { _tag: "FunctionResponse", id: "h1", name: "get_weather", response: { celsius: 20, sky: "clear" }, isError: false },
      { _tag: "FunctionResponse", id: "h2", name: "get_weather", response: { celsius: 7, sky: "rain" }, isError: false }
    ]
  }
]

const request: LanguageModel.Request = { system: "You are a terse assistant.", transcript, declarations, temperature: 0 }

/** Plain requests get a turn with two calls; streams get text, so there is a first text delta to time. */
const policy = Policy.fromFunction((received) =>
  received.stream
    ? { text: "Paris is 20 °C and clear at noon; Oslo is 7 °C with rain. I will send the summary now." }
    : { calls: [{ name: "get_time", args: { tz: "Europe/Paris" } }, { name: "get_time", args: { tz: "Europe/Oslo" } }] }
)

interface Pair {
  readonly name: string
  /** `count` turns through the layer, in one Effect run; ms in total. */
  readonly layer: (count: number) => Promise<number>
  /** `count` turns straight through the SDK; ms in total. */
  readonly direct: (count: number) => Promise<number>
  readonly goal: number
}

const timed = async (count: number, once: () => Promise<unknown>): Promise<number> => {
  const start = performance.now()
  for (let i = 0; i < count; i++) await once()
  return performance.now() - start
}

/** Medians over blocks of the per-turn µs, the two sides taking turns block by block. */
const measure = async (pair: Pair): Promise<{ layer: number; direct: number }> => {
  await pair.layer(warmUp)
  await pair.direct(warmUp)
  const layer: Array<number> = []
  const direct: Array<number> = []
  for (let block = 0; block < blocks; block++) {
    layer.push(((await pair.layer(perBlock)) * 1000) / perBlock)
    direct.push(((await pair.direct(perBlock)) * 1000) / perBlock)
  }
  return { layer: median(layer), direct: median(direct) }
}

/** The exact wire bodies the layers send, captured once on an emulator in this process. */
const captureBodies = Effect.scoped(
  Effect.gen(function* () {
    const emulator = yield* Emulator.make({ policy, signatures: false })
    const apiKey = Redacted.make(emulator.apiKey)
    yield* (yield* Gemini.make({ apiKey, baseUrl: emulator.geminiBaseUrl })).generate(request)
    yield* (yield* Glm.make({ apiKey, baseUrl: emulator.glmBaseUrl() })).generate(request)
    const [gemini, glm] = yield* emulator.requests
    return { gemini: gemini!.body, glm: glm!.body }
  })
)

const main = Effect.gen(function* () {
  const bodies = yield* captureBodies
  const emulator = yield* spawnChild(import.meta.url)
  const apiKey = Redacted.make(emulator.apiKey)
  const glmUrl = `${emulator.url}/api/paas/v4`
  const gemini = yield* Gemini.make({ apiKey, baseUrl: emulator.url })
  const glm = yield* Glm.make({ apiKey, baseUrl: glmUrl })
  const geminiBody = bodies.gemini as {
    contents: GenerateContentParameters["contents"]
    systemInstruction: object
    tools: Array<object>
    generationConfig: { temperature: number }
  }
  const geminiParams: GenerateContentParameters = {
    model: "gemini-2.5-flash",
    contents: geminiBody.contents,
    config: { systemInstruction: geminiBody.systemInstruction, tools: geminiBody.tools, temperature: geminiBody.generationConfig.temperature }
  }
  const glmBody = bodies.glm as ChatCompletionCreateParamsNonStreaming
  const ai = new GoogleGenAI({ apiKey: emulator.apiKey, httpOptions: { baseUrl: emulator.url } })
  const openai = new OpenAI({ apiKey: emulator.apiKey, baseURL: glmUrl, maxRetries: 0 })

  const layerTurns = (model: LanguageModel.Service) => (count: number) =>
    Effect.runPromise(
      Effect.gen(function* () {
        const start = performance.now()
        for (let i = 0; i < count; i++) {
          const response = yield* model.generate(request)
          if (Turn.calls(response.turn).length !== 2) return yield* Effect.dieMessage("expected two calls")
        }
        return performance.now() - start
      })
    )

  /** Time to the first text delta, summed over `count` streams (each drained, so connections are reused alike). */
  const layerFirstDelta = (model: LanguageModel.Service) => (count: number) =>
    Effect.runPromise(
      Effect.gen(function* () {
        let total = 0
        for (let i = 0; i < count; i++) {
          const start = performance.now()
          let first = 0
          yield* Stream.runForEach(model.stream(request), (part) =>
            Effect.sync(() => {
              if (first === 0 && part._tag === "TextDelta") first = performance.now()
            })
          )
          total += first - start
        }
        return total
      })
    )

  const pairs: ReadonlyArray<Pair> = [
    {
      name: "Gemini: generate, one turn",
      goal: turnGoalMicros,
      layer: layerTurns(gemini),
      direct: (count) =>
        timed(count, async () => {
          const response = await ai.models.generateContent(geminiParams)
          if (response.candidates?.[0]?.content?.parts?.length !== 2) throw new Error("expected two calls")
        })
    },
    {
      name: "GLM: chat completion, one turn",
      goal: turnGoalMicros,
      layer: layerTurns(glm),
      direct: (count) =>
        timed(count, async () => {
          const completion = await openai.chat.completions.create(glmBody)
          if (completion.choices[0]?.message.tool_calls?.length !== 2) throw new Error("expected two calls")
        })
    },
    {
      name: "Gemini: stream, first text delta",
      goal: firstDeltaGoalMicros,
      layer: layerFirstDelta(gemini),
      direct: async (count) => {
        let total = 0
        for (let i = 0; i < count; i++) {
          const start = performance.now()
          let first = 0
          for await (const chunk of await ai.models.generateContentStream(geminiParams)) {
            if (first === 0 && chunk.candidates?.[0]?.content?.parts?.some((part) => typeof part.text === "string" && part.text !== "")) first = performance.now()
          }
          total += first - start
        }
        return total
      }
    },
    {
      name: "GLM: stream, first text delta",
      goal: firstDeltaGoalMicros,
      layer: layerFirstDelta(glm),
      direct: async (count) => {
        let total = 0
        for (let i = 0; i < count; i++) {
          const start = performance.now()
          let first = 0
          for await (const chunk of await openai.chat.completions.create({ ...glmBody, stream: true })) {
            if (first === 0 && typeof chunk.choices[0]?.delta.content === "string" && chunk.choices[0].delta.content !== "") first = performance.now()
          }
          total += first - start
        }
        return total
      }
    }
  ]

  const rows: Array<Array<string>> = []
  for (const pair of pairs) {
    const { layer, direct } = yield* Effect.promise(() => measure(pair))
    const added = layer - direct
    rows.push([pair.name, fixed(direct, 0), fixed(layer, 0), fixed(added, 0), verdict(added <= pair.goal, `≤ ${pair.goal} µs`)])
  }
  Table.print({
    title: "Provider layers: time added per model turn, against the SDK called directly (emulator on 127.0.0.1)",
    columns: [
      { header: "path" },
      { header: "SDK direct, µs", align: "right" },
      { header: "through the layer, µs", align: "right" },
      { header: "added, µs", align: "right" },
      { header: "goal" }
    ],
    rows,
    notes: [
      "A turn: system + a 3-turn transcript (2 calls answered) + 3 declarations; the reply holds 2 calls (streams: a 17-word text).",
      "The direct SDK calls send the very body the layer sent (captured from the emulator), so both sides pay the same HTTP and server time.",
      "The emulator runs in a child process; first-delta times are measured on streams read to the end, so connections are reused alike.",
      `Median over ${blocks} blocks of ${perBlock} turns each, after ${warmUp} warm-up turns per side; the two sides take turns block by block.`,
      "The layer's share: encoding the neutral request, decoding and validating the response, the neutral turn, Effect and AbortSignal plumbing.",
      machine()
    ]
  })
})

Effect.runPromise(process.argv[2] === "--emulator" ? serve({ policy, signatures: false }) : Effect.scoped(main)).catch((error: unknown) => {
  console.error(error)
  process.exitCode = 1
})
