/**
 * Which cases of a suite run, and when a run stops early: the `-t` / `--tag` / `--bail` of `agentfx eval`.
 *
 * A case is selected by patterns (its id, its description or one of its `tags` contains one, ignoring case) and by
 * tags (it has one of them); given both, it must pass both. A pattern or tag that selects no case is an error, never
 * a smaller suite run in silence: a misspelt tag says which tag was meant.
 *
 * `forEachUntil` runs cases with bounded concurrency, in order, and starts no new case once `bail` of them have not
 * passed; the cases already running finish, the others are reported as not run.
 *
 * @example
 * ```ts
 * import { EvalCase, EvalSelection } from "@agentfx/tools"
 * import { Effect, Either } from "effect"
 *
 * const program = Effect.gen(function* () {
 *   const cases = [
 *     yield* EvalCase.make({ id: "kettle", input: "My kettle broke.", scenario: "valid-warranty", tags: ["smoke"], expected_function_calls: [] }),
 *     yield* EvalCase.make({ id: "toaster", input: "My toaster broke.", scenario: "valid-warranty", expected_function_calls: [] })
 *   ]
 *   const chosen = EvalSelection.select(cases, { tags: ["smoke"] })
 *   return Either.map(chosen, (selected) => selected.map((evalCase) => evalCase.id)) // Right(["kettle"])
 * })
 * ```
 *
 * @since 0.2.0
 */
import * as Spelling from "@agentfx/core/Spelling"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import type { EvalCase } from "./EvalCase.js"

/**
 * What to run: the cases matching any of `patterns`, of those the cases having any of `tags` (either left out or
 * empty: no condition).
 *
 * @since 0.2.0
 * @category models
 */
export interface Selection {
  readonly patterns?: ReadonlyArray<string> | undefined
  readonly tags?: ReadonlyArray<string> | undefined
}

/**
 * One part of a selection that selects nothing: a pattern no case matches, a tag no case has, or a pattern and a
 * tag that each select cases but none together (`value` is then empty).
 *
 * @since 0.2.0
 * @category models
 */
export const Unselected = Schema.Struct({
  kind: Schema.Literal("pattern", "tag", "together"),
  value: Schema.String,
  reason: Schema.String
})
/**
 * One part of a selection that selects nothing (the type of the `Unselected` schema).
 *
 * @since 0.2.0
 * @category models
 */
export interface Unselected extends Schema.Schema.Type<typeof Unselected> {}

/**
 * A selection that would leave a pattern or a tag without a case: each such part, with why.
 *
 * @since 0.2.0
 * @category errors
 */
export class SelectionError extends Schema.TaggedError<SelectionError>()("SelectionError", {
  problems: Schema.NonEmptyArray(Unselected)
}) {
  override get message(): string {
    return this.problems.map((problem) => (problem.kind === "together" ? problem.reason : `${problem.kind} "${problem.value}": ${problem.reason}`)).join("; ")
  }
}

/**
 * Whether the case's id, description or one of its tags contains `pattern`, ignoring case.
 *
 * @since 0.2.0
 */
export const matches = (evalCase: EvalCase, pattern: string): boolean => {
  const needle = pattern.toLowerCase()
  return [evalCase.id, evalCase.description, ...(evalCase.tags ?? [])].some((text) => text.toLowerCase().includes(needle))
}

const listed = (names: ReadonlyArray<string>, max = 12): string =>
  names.length === 0 ? "none" : names.length > max ? `${names.slice(0, max).join(", ")} and ${names.length - max} more` : names.join(", ")

/**
 * The cases `selection` chooses, in their order; a pattern or tag that chooses none is a `SelectionError` naming
 * each (a tag close to one a case has says "did you mean").
 *
 * @since 0.2.0
 */
export const select = (cases: ReadonlyArray<EvalCase>, selection: Selection): Either.Either<ReadonlyArray<EvalCase>, SelectionError> => {
  const patterns = selection.patterns ?? []
  const tags = selection.tags ?? []
  const known = [...new Set(cases.flatMap((evalCase) => evalCase.tags ?? []))].sort()
  const problems: Array<Unselected> = []
  for (const pattern of patterns) {
    if (!cases.some((evalCase) => matches(evalCase, pattern))) {
      problems.push({ kind: "pattern", value: pattern, reason: "no case's id, description or tag contains it" })
    }
  }
  for (const tag of tags) {
    if (!known.includes(tag)) problems.push({ kind: "tag", value: tag, reason: `no case has it${Spelling.didYouMean(tag, known)}; the tags: ${listed(known)}` })
  }
  const chosen = cases.filter(
    (evalCase) => (patterns.length === 0 || patterns.some((pattern) => matches(evalCase, pattern))) && (tags.length === 0 || tags.some((tag) => evalCase.tags?.includes(tag)))
  )
  if (problems.length === 0 && chosen.length === 0) {
    problems.push({ kind: "together", value: "", reason: "no case matches a pattern and has a tag of those given, though each selects cases on its own" })
  }
  const [first, ...rest] = problems
  return first === undefined ? Either.right(chosen) : Either.left(new SelectionError({ problems: [first, ...rest] }))
}

/**
 * What `forEachUntil` ran, and the cases it did not start.
 *
 * @since 0.2.0
 * @category models
 */
export interface Run<A> {
  readonly results: ReadonlyArray<A>
  readonly notRun: ReadonlyArray<EvalCase>
}

/**
 * Runs `run` on every case (at most `concurrency` at once, started in order; results in case order) and, with
 * `bail`, starts no case once `bail` results are `failed` by the predicate: the cases running then finish, the
 * others are returned as not run.
 *
 * @since 0.2.0
 */
export const forEachUntil = <A, E, R>(
  cases: ReadonlyArray<EvalCase>,
  run: (evalCase: EvalCase) => Effect.Effect<A, E, R>,
  options: { readonly concurrency: number; readonly bail?: number | undefined; readonly failed: (result: A) => boolean }
): Effect.Effect<Run<A>, E, R> =>
  Effect.suspend(() => {
    const bail = options.bail
    if (bail !== undefined && !(Number.isInteger(bail) && bail >= 1)) return Effect.dieMessage(`bail must be an integer ≥ 1, got ${bail}`)
    let failures = 0
    const one = (evalCase: EvalCase): Effect.Effect<Either.Either<A, EvalCase>, E, R> =>
      Effect.suspend((): Effect.Effect<Either.Either<A, EvalCase>, E, R> => {
        if (bail !== undefined && failures >= bail) return Effect.succeed(Either.left(evalCase))
        return Effect.map(run(evalCase), (result) => {
          if (options.failed(result)) failures++
          return Either.right(result)
        })
      })
    return Effect.map(Effect.forEach(cases, one, { concurrency: options.concurrency }), (outcomes) => ({
      results: outcomes.flatMap((outcome) => (Either.isRight(outcome) ? [outcome.right] : [])),
      notRun: outcomes.flatMap((outcome) => (Either.isLeft(outcome) ? [outcome.left] : []))
    }))
  })
