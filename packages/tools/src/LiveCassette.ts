/**
 * Live cassettes: what the model of a Live session said, per connection, stored with an eval case under
 * `x-live-cassette` and replayed offline (the emulator's Live endpoint through the real SDK, or any server that
 * plays the steps). A connection is a list of steps; a step is what the model said up to the point where it waited
 * for us — `text`, `calls`, or both — and what the server did around it:
 *
 * - `cancel_after`: the server cancelled the step's calls this long after asking for them (the user spoke over
 *   them);
 * - `go_away`: after the step the server said it would close the connection in this long (the session resumes on
 *   a new one with its handle);
 * - `drop_after_responses`: once the step's calls were answered the server closed the connection with this code.
 *
 * Durations are written `250ms`, `1.5s` or `2m`. Replayed, the steps of every connection are served in order of
 * the session's history, which a resumed connection keeps.
 *
 * ```yaml
 * x-live-cassette:
 *   - - calls: [{ name: get_device_status, args: { device_name: living room lamp } }]
 *     - text: The living room lamp is off.
 *       go_away: 100ms
 *   - - text: It is set to 20 °C.
 * ```
 *
 * `recorder` records one from a session on a real Live model (`--record`).
 *
 * @since 0.3.0
 */
import type { FunctionCall, LiveModel } from "@agentfx/core"
import { Json } from "@agentfx/core"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import { CassetteError } from "./Cassette.js"
import type { EvalCase } from "./EvalCase.js"
import * as YamlSource from "./internal/yamlSource.js"

/**
 * The case field a Live cassette is stored under.
 *
 * @since 0.3.0
 * @category constants
 */
export const field = "x-live-cassette"

const units: Record<string, number> = { ms: 1, s: 1000, m: 60_000 }

/** A duration as written in a cassette: `250ms`, `1.5s`, `2m`. */
const DurationText = Schema.transformOrFail(Schema.String, Schema.DurationFromSelf, {
  strict: true,
  decode: (text, _, ast) => {
    const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m)\s*$/.exec(text)
    return match === null
      ? ParseResult.fail(new ParseResult.Type(ast, text, "a duration such as 250ms, 1.5s or 2m"))
      : ParseResult.succeed(Duration.millis(Number(match[1]) * units[match[2]!]!))
  },
  encode: (duration) => ParseResult.succeed(`${Duration.toMillis(duration)}ms`)
})

const Call = Schema.Struct({
  name: Schema.NonEmptyString,
  args: Schema.optionalWith(Json.JsonObject, { default: () => ({}) })
})

/** A WebSocket close code a server sends (1000–1014 but 1004 and 1005, or 3000–4999). */
const CloseCode = Schema.Number.pipe(
  Schema.filter(
    (code) =>
      (Number.isInteger(code) && ((code >= 1000 && code <= 1014 && code !== 1004 && code !== 1005) || (code >= 3000 && code <= 4999))) ||
      "a close code a server sends: 1000–1003, 1006–1014 or 3000–4999"
  )
)

/**
 * What the model said up to a point where it waited for us, and what the server did around it.
 *
 * @since 0.3.0
 * @category schemas
 */
export const Step = Schema.Struct({
  text: Schema.optional(Schema.String),
  calls: Schema.optional(Schema.Array(Call)),
  cancel_after: Schema.optional(DurationText),
  go_away: Schema.optional(DurationText),
  drop_after_responses: Schema.optional(CloseCode)
}).pipe(
  Schema.filter((step) => {
    const calls = step.calls?.length ?? 0
    if (step.text === undefined && calls === 0) return "a step holds `text` or `calls`"
    if (calls === 0 && step.cancel_after !== undefined) return "`cancel_after` cancels the step's calls: give `calls` with it"
    if (calls === 0 && step.drop_after_responses !== undefined) return "`drop_after_responses` closes once the step's calls are answered: give `calls` with it"
    return true
  })
)
/**
 * @since 0.3.0
 * @category models
 */
export type Step = typeof Step.Type

/**
 * The steps of one connection.
 *
 * @since 0.3.0
 * @category schemas
 */
export const Connection = Schema.NonEmptyArray(Step)
/**
 * @since 0.3.0
 * @category models
 */
export type Connection = typeof Connection.Type

/**
 * A Live cassette: the steps of each connection, in order.
 *
 * @since 0.3.0
 * @category schemas
 */
export const LiveCassette = Schema.NonEmptyArray(Connection)
/**
 * @since 0.3.0
 * @category models
 */
export type LiveCassette = typeof LiveCassette.Type

const decodeFrom = (
  yaml: YamlSource.Source,
  at: { readonly source: string; readonly caseId?: string; readonly prefix?: ReadonlyArray<PropertyKey> }
): Either.Either<LiveCassette, CassetteError> =>
  Either.mapLeft(
    YamlSource.decode(LiveCassette, yaml, at.prefix),
    (problem) =>
      new CassetteError({
        source: at.source,
        reason: problem.reason,
        ...(problem.line === undefined ? {} : { line: problem.line }),
        ...(at.caseId === undefined ? {} : { caseId: at.caseId }),
        ...(problem.field === undefined ? {} : { field: problem.field })
      })
  )

/**
 * Decodes a stored Live cassette; `source` names it in errors, which give the path of the offending field.
 *
 * @since 0.3.0
 * @category decoding
 */
export const decode = (value: unknown, source: string): Either.Either<LiveCassette, CassetteError> =>
  decodeFrom({ value, lineOf: () => undefined, textOf: () => undefined }, { source })

/**
 * A Live cassette as it is stored (durations as text).
 *
 * @since 0.3.0
 * @category encoding
 */
export const encode = (cassette: LiveCassette): unknown => Schema.encodeSync(LiveCassette)(cassette)

/**
 * The case's Live cassette: `undefined` when it has none, else the decoded cassette or why it is invalid.
 *
 * @since 0.3.0
 * @category decoding
 */
export const ofCase = (evalCase: EvalCase): Either.Either<LiveCassette, CassetteError> | undefined => {
  const value = evalCase.extensions[field]
  if (value === undefined) return undefined
  const lineOf = (path: ReadonlyArray<PropertyKey>) => evalCase.lineOf?.([field, ...path])
  return decodeFrom({ value, lineOf, textOf: () => undefined }, { source: evalCase.file, caseId: evalCase.id, prefix: [field] })
}

/**
 * The steps in the order a replay serves them: the connections' one after the other.
 *
 * @since 0.3.0
 * @category accessors
 */
export const steps = (cassette: LiveCassette): ReadonlyArray<Step> => cassette.flat()

/** What a recording has seen of one connection so far. */
interface Taking {
  readonly steps: Array<Step>
  text: string
  /** The step holding the calls asked last, and when they were asked (for `cancel_after`). */
  asked: { readonly index: number; readonly at: number } | undefined
}

/**
 * Records what a Live model says, per connection, as a cassette: `wrap` the live model service, run the session,
 * then read `cassette`. Text up to a `ToolCall` or a `TurnComplete` is a step; a cancellation of a step's calls is
 * its `cancel_after`, a `GoAway` the last step's `go_away`, a connection the server closes (but with 1000) right
 * after answering calls is the `drop_after_responses` of the step that asked them.
 *
 * @since 0.3.0
 * @category models
 */
export interface Recorder {
  readonly wrap: (live: LiveModel.Service) => LiveModel.Service
  /** The cassette so far; undefined while no connection has said anything. */
  readonly cassette: Effect.Effect<LiveCassette | undefined>
}

/**
 * A new `Recorder`, with no connection recorded yet.
 *
 * @since 0.3.0
 * @category constructors
 */
export const recorder: Effect.Effect<Recorder> = Effect.sync(() => {
  const connections: Array<Taking> = []
  const close = (taking: Taking) => {
    if (taking.text !== "") taking.steps.push({ text: taking.text })
    taking.text = ""
  }
  const note = (taking: Taking, event: LiveModel.Event, at: number, answered: boolean): void => {
    switch (event._tag) {
      case "TextDelta":
        taking.text += event.text
        return
      case "ToolCall": {
        const calls = event.calls.map((call: FunctionCall.FunctionCall) => ({ name: call.name, args: call.args }))
        taking.steps.push({ ...(taking.text === "" ? {} : { text: taking.text }), calls })
        taking.text = ""
        taking.asked = { index: taking.steps.length - 1, at }
        return
      }
      case "ToolCallCancellation": {
        const asked = taking.asked
        if (asked === undefined) return
        const step = taking.steps[asked.index]!
        if (step.cancel_after === undefined) taking.steps[asked.index] = { ...step, cancel_after: Duration.millis(at - asked.at) }
        return
      }
      case "TurnComplete":
        close(taking)
        return
      case "GoAway": {
        close(taking)
        const last = taking.steps.length - 1
        if (last >= 0) taking.steps[last] = { ...taking.steps[last]!, go_away: event.timeLeft }
        return
      }
      case "Closed": {
        close(taking)
        const asked = taking.asked
        if (asked === undefined || !answered || event.code === 1000 || asked.index !== taking.steps.length - 1) return
        const step = taking.steps[asked.index]!
        taking.steps[asked.index] = { ...step, drop_after_responses: event.code }
        return
      }
      default:
        return
    }
  }
  const wrap = (live: LiveModel.Service): LiveModel.Service => ({
    ...live,
    connect: (setup) =>
      Effect.map(live.connect(setup), (connection): LiveModel.Connection => {
        const taking: Taking = { steps: [], text: "", asked: undefined }
        connections.push(taking)
        // Whether the calls asked last were answered since: a close right after is the server's drop.
        let answered = false
        return {
          ...connection,
          sendToolResponses: (responses) => Effect.zipLeft(connection.sendToolResponses(responses), Effect.sync(() => (answered = responses.some((r) => r.willContinue !== true)))),
          events: Stream.tap(connection.events, (event) =>
            Effect.map(Clock.currentTimeMillis, (at) => {
              if (event._tag === "ToolCall") answered = false
              note(taking, event, at, answered)
            })
          )
        }
      })
  })
  return {
    wrap,
    cassette: Effect.sync(() => {
      const said = connections.filter((taking) => taking.steps.length > 0 || taking.text !== "")
      const recorded = said.map((taking): Connection => {
        const pending = taking.text === "" ? [] : [{ text: taking.text }]
        const [first, ...rest] = [...taking.steps, ...pending]
        return [first!, ...rest]
      })
      const [first, ...rest] = recorded
      return first === undefined ? undefined : [first, ...rest]
    })
  }
})
