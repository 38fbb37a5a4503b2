/**
 * Cassettes: the model turns of one conversation, stored with an eval case under `x-cassette` and replayed offline
 * (e.g. by the emulator's `Policy.byModel`), so that everything but the model — provider layer, loop, tools and
 * mocks, validator — runs for real. A step is `{text?, reasoning?, calls?: [{name, args}]}`; any other field is
 * an error naming its path and line (a misspelt `args` must not replay a call with no arguments).
 *
 * ```yaml
 * x-cassette:
 *   - calls: [{ name: check_warranty, args: { serial_number: SN-1 } }]
 *   - text: The product is under warranty.
 * ```
 *
 * @since 0.1.0
 */
import type { Transcript } from "@agentfx/core"
import { Json, Turn } from "@agentfx/core"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import type { EvalCase } from "./EvalCase.js"
import * as YamlSource from "./internal/yamlSource.js"

/**
 * The case field a cassette is stored under.
 *
 * @since 0.1.0
 */
export const field = "x-cassette"

const Call = Schema.Struct({
  name: Schema.NonEmptyString,
  args: Schema.optionalWith(Json.JsonObject, { default: () => ({}) })
})

/**
 * One recorded model turn: its text, its reasoning, its calls (at least text or one call).
 *
 * @since 0.1.0
 */
export const Step = Schema.Struct({
  text: Schema.optional(Schema.String),
  reasoning: Schema.optional(Schema.String),
  calls: Schema.optional(Schema.Array(Call))
}).pipe(Schema.filter((step) => step.text !== undefined || (step.calls?.length ?? 0) > 0 || "a step holds `text` or `calls`"))
/**
 * One recorded model turn, decoded (the type of the `Step` schema).
 *
 * @since 0.1.0
 * @category models
 */
export type Step = typeof Step.Type

/**
 * A cassette: the model turns of one case, in order, at least one.
 *
 * @since 0.1.0
 */
export const Cassette = Schema.NonEmptyArray(Step)
/**
 * A cassette, decoded (the type of the `Cassette` schema).
 *
 * @since 0.1.0
 * @category models
 */
export type Cassette = typeof Cassette.Type

/**
 * A stored cassette is not a list of steps: where (file or name, line, case), which field, why.
 *
 * @since 0.1.0
 * @category errors
 */
export class CassetteError extends Schema.TaggedError<CassetteError>()("CassetteError", {
  source: Schema.String,
  line: Schema.optional(Schema.Number),
  caseId: Schema.optional(Schema.String),
  field: Schema.optional(Schema.String),
  reason: Schema.String
}) {
  override get message(): string {
    const which = this.caseId === undefined ? "" : `case "${this.caseId}": `
    return `${YamlSource.where(this.source, this.line)}: ${which}the cassette is invalid: ${this.field === undefined ? "" : `${this.field}: `}${this.reason}`
  }
}

const decodeFrom = (
  yaml: YamlSource.Source,
  at: { readonly source: string; readonly caseId?: string; readonly prefix?: ReadonlyArray<PropertyKey> }
): Either.Either<Cassette, CassetteError> =>
  Either.mapLeft(
    YamlSource.decode(Cassette, yaml, at.prefix),
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
 * Decodes a stored cassette; `source` names it in errors, which give the path of the offending field.
 *
 * @since 0.1.0
 */
export const decode = (value: unknown, source: string): Either.Either<Cassette, CassetteError> =>
  decodeFrom({ value, lineOf: () => undefined, textOf: () => undefined }, { source })

/**
 * The case's cassette: `undefined` when it has none, else the decoded cassette or why it is invalid (with the
 * file's line when the case was read from a file).
 *
 * @since 0.1.0
 */
export const ofCase = (evalCase: EvalCase): Either.Either<Cassette, CassetteError> | undefined => {
  const value = evalCase.extensions[field]
  if (value === undefined) return undefined
  const lineOf = (path: ReadonlyArray<PropertyKey>) => evalCase.lineOf?.([field, ...path])
  return decodeFrom({ value, lineOf, textOf: () => undefined }, { source: evalCase.file, caseId: evalCase.id, prefix: [field] })
}

/**
 * A cassette from the model turns of a transcript (what recording stores).
 *
 * @since 0.1.0
 */
export const fromTranscript = (transcript: Transcript.Transcript): Cassette => {
  const steps = transcript
    .filter((turn) => turn.role === "model")
    .map((turn): Step => {
      const calls = Turn.calls(turn).map((call) => ({ name: call.name, args: call.args }))
      const text = Turn.text(turn)
      const reasoning = turn.parts.flatMap((part) => (part._tag === "Reasoning" ? [part.text] : [])).join("")
      return {
        ...(text === "" && calls.length > 0 ? {} : { text }),
        ...(reasoning === "" ? {} : { reasoning }),
        ...(calls.length === 0 ? {} : { calls })
      }
    })
  const [first, ...rest] = steps
  return first === undefined ? [{ text: "" }] : [first, ...rest]
}

/**
 * The model name a conversation asks the emulator for when its case has no cassette: the offline rule model answers it.
 *
 * @since 0.1.0
 */
export const offlineModel = "offline"

/**
 * How a set of eval cases is replayed offline, through one emulator serving every case at once: each case with a
 * cassette talks to the emulator as the model named by its key (`case-<position>`), whose script is its cassette
 * (see the emulator's `Policy.byModel`). One rule for the rest: a case without a cassette asks for `offlineModel`
 * (the offline rule model answers it); a case whose cassette is invalid is an error case, with the reason.
 *
 * @since 0.1.0
 * @category models
 */
export interface Replay {
  /** Each case's cassette, by the model name its conversation asks for. */
  readonly scripts: ReadonlyMap<string, Cassette>
  /** The model name a case's conversation asks for, or why its cassette cannot be replayed. */
  readonly modelOf: (evalCase: EvalCase) => Either.Either<string, CassetteError>
  /** How many cases have a cassette, of how many, and how many of those cassettes are invalid. */
  readonly recorded: number
  readonly invalid: number
  readonly total: number
}

/**
 * The replay of `cases` (see `Replay`).
 *
 * @since 0.1.0
 */
export const replay = (cases: ReadonlyArray<EvalCase>): Replay => {
  const scripts = new Map<string, Cassette>()
  const models = new Map<EvalCase, Either.Either<string, CassetteError>>()
  let invalid = 0
  cases.forEach((evalCase, position) => {
    const cassette = ofCase(evalCase)
    if (cassette === undefined) return models.set(evalCase, Either.right(offlineModel))
    if (Either.isLeft(cassette)) {
      invalid++
      return models.set(evalCase, Either.left(cassette.left))
    }
    const key = `case-${position}`
    scripts.set(key, cassette.right)
    models.set(evalCase, Either.right(key))
  })
  return {
    scripts,
    modelOf: (evalCase) => models.get(evalCase) ?? Either.right(offlineModel),
    recorded: scripts.size + invalid,
    invalid,
    total: cases.length
  }
}
