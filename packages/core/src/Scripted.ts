/**
 * A `LanguageModel` that plays a script: each request gets the next step (a turn, an error, after an optional
 * delay), or the answer of a function of the request. Call ids are deterministic (`call_<request>_<index>`).
 *
 * @example
 * ```ts
 * import { Agent, Registry, Tool } from "@agentfx/core"
 * import { Scripted } from "@agentfx/core/testing"
 * import { Effect, Schema } from "effect"
 *
 * const getWeather = Tool.make("get_weather", {
 *   description: "Current temperature of a city in °C",
 *   parameters: Schema.Struct({ city: Schema.String }),
 *   success: Schema.Struct({ celsius: Schema.Number }),
 *   handler: ({ city }) => Effect.succeed({ celsius: city === "Oslo" ? 7 : 20 })
 * })
 *
 * const model = Scripted.layer([
 *   { calls: [{ name: "get_weather", args: { city: "Oslo" } }] },
 *   { text: "It is 7 °C in Oslo." }
 * ])
 * const program = Effect.gen(function* () {
 *   const registry = yield* Registry.make(getWeather)
 *   return yield* Agent.run({ registry, prompt: "Weather in Oslo?" })
 * })
 * Effect.runPromise(program.pipe(Effect.provide(model))).then((result) => console.log(result.text))
 * ```
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import type * as FunctionCall from "./FunctionCall.js"
import * as AppendOnly from "./internal/appendOnly.js"
import { replay } from "./internal/streaming.js"
import type { JsonObject } from "./Json.js"
import * as LanguageModel from "./LanguageModel.js"
import * as ModelError from "./ModelError.js"
import * as Turn from "./Turn.js"

/**
 * A call in a script; `id` defaults to `call_<request>_<index>`.
 *
 * @since 0.1.0
 * @category models
 */
export interface ScriptCall {
  readonly name: string
  readonly args?: JsonObject
  readonly id?: string
  readonly metadata?: FunctionCall.Metadata
}

/**
 * One answer: a model turn (text and/or calls, or exact `parts`), or an error; optionally after a delay.
 *
 * @since 0.1.0
 * @category models
 */
export type Step =
  | {
      readonly text?: string
      readonly reasoning?: string
      readonly calls?: ReadonlyArray<ScriptCall>
      /** Exact parts (overrides text, reasoning and calls). */
      readonly parts?: ReadonlyArray<Turn.Part>
      readonly usage?: Partial<LanguageModel.Usage>
      readonly finishReason?: LanguageModel.FinishReason
      readonly delay?: Duration.DurationInput
    }
  | { readonly error: ModelError.ModelError; readonly delay?: Duration.DurationInput }

/**
 * A step as a function of the request and its 0-based index.
 *
 * @since 0.1.0
 * @category models
 */
export type Responder = (request: LanguageModel.Request, index: number) => Effect.Effect<Step>

/**
 * `assertConsumed` found steps of the script that no request used.
 *
 * @since 0.1.0
 * @category errors
 */
export class ScriptIncomplete extends Schema.TaggedError<ScriptIncomplete>()("ScriptIncomplete", {
  used: Schema.Number,
  total: Schema.Number
}) {
  override get message(): string {
    return `the script has ${this.total} steps but only ${this.used} were used`
  }
}

/**
 * Inspects a scripted model: the requests it received, and whether its script was used up.
 *
 * @since 0.1.0
 * @category tags
 */
export class ScriptedModel extends Context.Tag("@agentfx/core/testing/ScriptedModel")<
  ScriptedModel,
  {
    readonly requests: Effect.Effect<ReadonlyArray<LanguageModel.Request>>
    readonly assertConsumed: Effect.Effect<void, ScriptIncomplete>
  }
>() {}

/** The usage a step reports: what it says, else one token per started 4 characters of its text. */
const usageOf = (step: Step & { readonly text?: string }, turn: Turn.Turn): LanguageModel.Usage => {
  const output = "usage" in step && step.usage?.outputTokens !== undefined ? step.usage.outputTokens : Math.ceil(Turn.text(turn).length / 4)
  const input = "usage" in step && step.usage?.inputTokens !== undefined ? step.usage.inputTokens : 1
  return { inputTokens: input, outputTokens: output, totalTokens: input + output, ...("usage" in step ? step.usage : {}) }
}

/**
 * Builds the model turn of a step. Generated ids are `call_<request>_<index>`, skipping any in `taken` (the ids of
 * the conversation so far: a resumed session may already hold them).
 *
 * @since 0.1.0
 */
export const turnOf = (
  step: Exclude<Step, { readonly error: ModelError.ModelError }>,
  index: number,
  taken: ReadonlySet<string> = new Set()
): Turn.Turn => {
  if (step.parts !== undefined) return { role: "model", parts: step.parts }
  const parts: Array<Turn.Part> = []
  if (step.reasoning !== undefined) parts.push({ _tag: "Reasoning", text: step.reasoning })
  if (step.text !== undefined) parts.push({ _tag: "Text", text: step.text })
  ;(step.calls ?? []).forEach((call, i) =>
    parts.push({
      _tag: "FunctionCall",
      id: call.id ?? freshId(`call_${index}_${i}`, taken),
      name: call.name,
      args: call.args ?? {},
      ...(call.metadata === undefined ? {} : { metadata: call.metadata })
    })
  )
  return { role: "model", parts }
}

const freshId = (base: string, taken: ReadonlySet<string>): string => {
  let id = base
  for (let k = 2; taken.has(id); k++) id = `${base}_${k}`
  return id
}

/**
 * The call ids of successive transcripts. A run's transcripts only grow, so only the new turns are read; any
 * other transcript is read whole.
 */
const callIdTracker = () => {
  let ids = new Set<string>()
  // Stryker disable next-line ArrayDeclaration: the first transcript never extends whatever read holds, so it is read afresh anyway
  let read: ReadonlyArray<Turn.Turn> = []
  return (transcript: ReadonlyArray<Turn.Turn>): ReadonlySet<string> => {
    // Stryker disable next-line ConditionalExpression,EqualityOperator: a shorter transcript fails the identity check below anyway, and reading afresh finds the same ids
    const longEnough = read.length <= transcript.length
    const grows = longEnough && (read.length === 0 || transcript[read.length - 1] === read[read.length - 1])
    // Stryker disable next-line ConditionalExpression: reading afresh every time finds the same ids
    if (!grows) {
      ids = new Set()
      read = []
    }
    for (let i = read.length; i < transcript.length; i++) for (const call of Turn.calls(transcript[i]!)) ids.add(call.id)
    read = transcript
    return ids
  }
}

const responseOf = (step: Step, index: number, taken: () => ReadonlySet<string>): Effect.Effect<LanguageModel.Response, ModelError.ModelError> => {
  // A ModelError given as a step (rather than `{ error }`) fits the turn's shape, all of whose fields are optional:
  // it is meant as the error, not as an empty turn.
  if (ModelError.isModelError(step)) return Effect.fail(step)
  const answer = "error" in step ? Effect.fail(step.error) : Effect.sync(() => {
    const turn = turnOf(step, index, taken())
    const finishReason = step.finishReason ?? (Turn.calls(turn).length > 0 ? "tool_calls" : "stop")
    return { turn, finishReason, usage: usageOf(step, turn) }
  })
  return step.delay === undefined ? answer : Effect.zipRight(Effect.sleep(step.delay), answer)
}

/** Words with their trailing spaces: a scripted answer streams in pieces, like a real provider's. */
// Stryker disable next-line ArrayDeclaration: a replay never splits an empty text, the only one without a match
const words = (text: string): ReadonlyArray<string> => text.match(/\S+\s*|\s+/g) ?? []

/**
 * The scripted model's service and inspector, from a script or a responder.
 *
 * @example
 * ```ts
 * import { Agent, Registry } from "@agentfx/core"
 * import { Scripted } from "@agentfx/core/testing"
 * import { Effect } from "effect"
 *
 * const program = Effect.gen(function* () {
 *   const context = yield* Scripted.make([{ text: "Hello!" }])
 *   const result = yield* Agent.run({ registry: Registry.empty, prompt: "Hi" }).pipe(Effect.provide(context))
 *   yield* Effect.provide(Effect.flatMap(Scripted.ScriptedModel, (model) => model.assertConsumed), context)
 *   return result.text // "Hello!"
 * })
 *
 * Effect.runPromise(program)
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  script: ReadonlyArray<Step> | Responder,
  options: { readonly model?: string } = {}
): Effect.Effect<Context.Context<LanguageModel.LanguageModel | ScriptedModel>> =>
  Effect.sync(() => {
    // Requests are recorded in an append-only list: recording one costs the same at request 4,000 as at request 1.
    let requests: ReadonlyArray<LanguageModel.Request> = []
    const taken = callIdTracker()
    const next = (request: LanguageModel.Request): Effect.Effect<LanguageModel.Response, ModelError.ModelError> =>
      Effect.suspend(() => {
        const index = requests.length
        requests = AppendOnly.append(requests, [request])
        if (typeof script === "function") return Effect.flatMap(script(request, index), (step) => responseOf(step, index, () => taken(request.transcript)))
        const step = script[index]
        return step === undefined
          ? Effect.fail(new ModelError.InvalidRequest({ message: `the script has no step ${index + 1} (it has ${script.length})` }))
          : responseOf(step, index, () => taken(request.transcript))
      })
    const service: LanguageModel.Service = {
      provider: "scripted",
      model: options.model ?? "scripted",
      generate: next,
      stream: (request) => replay(next(request), words)
    }
    const inspector = {
      requests: Effect.sync(() => requests),
      assertConsumed: Effect.suspend(() =>
        typeof script === "function" || requests.length >= script.length
          ? Effect.void
          : Effect.fail(new ScriptIncomplete({ used: requests.length, total: script.length }))
      )
    }
    return Context.make(LanguageModel.LanguageModel, service).pipe(Context.add(ScriptedModel, inspector))
  })

/**
 * A Layer with the scripted `LanguageModel` and its `ScriptedModel` inspector.
 *
 * @since 0.1.0
 */
export const layer = (
  script: ReadonlyArray<Step> | Responder,
  options: { readonly model?: string } = {}
): Layer.Layer<LanguageModel.LanguageModel | ScriptedModel> => Layer.effectContext(make(script, options))

/**
 * A ready-made step with one call, for brevity in scripts.
 *
 * @since 0.1.0
 */
export const call = (name: string, args: JsonObject = {}): Step => ({ calls: [{ name, args }] })

/**
 * A ready-made final text step.
 *
 * @since 0.1.0
 */
export const text = (value: string): Step => ({ text: value })
