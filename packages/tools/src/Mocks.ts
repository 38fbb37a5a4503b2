/**
 * Mock function responses: per function, the outcomes a mocked tool answers with — the first entry whose `when`
 * the arguments contain answers (an entry without `when` answers any). The same entries as an eval case's
 * `mock_function_responses`, also read from a file of their own (`agentfx live --mocks FILE`):
 *
 * ```yaml
 * get_device_status:
 *   - when: { device_name: living room lamp }
 *     response: { device_name: living room lamp, status: "off" }
 *   - error: there is no such device            # no `when`: the fallback, so it comes last
 * set_device_status:
 *   response: { status: "on" }                  # one outcome, for any arguments
 * ```
 *
 * A mocked tool keeps its declaration and its argument checks (invalid arguments fail as they would for real); only
 * its handler is replaced.
 *
 * @since 0.3.0
 */
import type * as FileSystem from "@effect/platform/FileSystem"
import { Json, Registry, Telemetry } from "@agentfx/core"
import type { Tool } from "@agentfx/core"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import type { MockResponse } from "./EvalCase.js"
import { MockFunctionResponses } from "./EvalCase.js"
import * as BoundedText from "./internal/boundedText.js"
import { contains, show } from "./internal/jsonValue.js"
import * as YamlSource from "./internal/yamlSource.js"

/**
 * Per function, its mock entries (always a list once decoded).
 *
 * @since 0.3.0
 * @category models
 */
export type Mocks = typeof MockFunctionResponses.Type

/**
 * A mocks file cannot be read, is not valid YAML, or an entry is invalid: where, which field, why.
 *
 * @since 0.3.0
 * @category errors
 */
export class MocksFileError extends Schema.TaggedError<MocksFileError>()("MocksFileError", {
  file: Schema.String,
  line: Schema.optional(Schema.Number),
  field: Schema.optional(Schema.String),
  reason: Schema.String
}) {
  override get message(): string {
    return `${YamlSource.where(this.file, this.line)}: ${this.field === undefined ? "" : `${this.field}: `}${this.reason}`
  }
}

/**
 * The mock entry that answers these arguments: the first whose `when` the arguments contain (any, without one).
 *
 * @since 0.3.0
 * @category matching
 */
export const entry = (entries: ReadonlyArray<MockResponse>, args: Json.JsonObject): MockResponse | undefined =>
  entries.find((candidate) => candidate.when === undefined || contains(candidate.when, args))

/**
 * What the mocks answer for these arguments: the first entry whose `when` the arguments contain. `from` says where
 * the mocks were given, for arguments none answers.
 *
 * @since 0.3.0
 * @category matching
 */
export const outcome = (
  functionName: string,
  entries: ReadonlyArray<MockResponse>,
  args: Json.JsonObject,
  from = "the eval case"
): Either.Either<unknown, Json.JsonObject> => {
  const found = entry(entries, args)
  if (found === undefined) return Either.left({ message: `${from} gives no mock response for ${functionName} with these arguments: ${show(args, 500)}` })
  if (found.error !== undefined) return Either.left(typeof found.error === "string" ? { message: found.error } : found.error)
  return Either.right(found.response)
}

/**
 * The tool with its handler replaced by the mock. Arguments are still decoded by the tool (so invalid arguments
 * fail as they would for real), but the mock matches the raw arguments.
 *
 * @since 0.3.0
 * @category constructors
 */
export const tool = <R>(implementation: Tool.Tool<R>, entries: ReadonlyArray<MockResponse>, from?: string): Tool.Tool<R> => ({
  ...implementation,
  decode: (args) => Either.map(implementation.decode(args), () => args),
  // Stryker disable next-line BooleanLiteral: the executor asks only about arguments that decoded, so `onLeft` is never taken
  needsApproval: (args) => Either.match(implementation.decode(args as Json.JsonObject), { onLeft: () => false, onRight: implementation.needsApproval }),
  run: (args) =>
    Either.match(outcome(implementation.name, entries, args as Json.JsonObject, from), {
      // Stryker disable next-line BooleanLiteral: a mock's error is the tool's answer, not a crash; no eval result carries the flag
      onLeft: (cause) => Effect.fail({ cause, defect: false }),
      onRight: (value) => Effect.succeed(value)
    })
})

/**
 * The registry with the tools `mocks` names mocked (in place, in order); the others as they are.
 *
 * @example
 * ```ts
 * import { Agent, Registry, Tool } from "@agentfx/core"
 * import { Scripted } from "@agentfx/core/testing"
 * import { Mocks } from "@agentfx/tools"
 * import { Effect, Schema } from "effect"
 *
 * const getStatus = Tool.make("get_device_status", {
 *   description: "The status of a device",
 *   parameters: Schema.Struct({ device_name: Schema.String }),
 *   handler: ({ device_name }) => Effect.die(`no real ${device_name} here`)
 * })
 *
 * const yaml = `
 * get_device_status:
 *   - when: { device_name: lamp }
 *     response: { status: "off" }
 *   - error: there is no such device   # no when: the fallback
 * `
 *
 * const program = Effect.gen(function* () {
 *   const mocks = yield* Mocks.parse(yaml, "mocks.yaml")
 *   const registry = Mocks.apply(yield* Registry.make(getStatus), mocks)
 *   const result = yield* Agent.run({ registry, prompt: "Are the lamp and the oven on?" })
 *   return result.calls.map((call) => call.response.response) // what the model was answered
 * })
 *
 * const model = Scripted.layer([
 *   { calls: [{ name: "get_device_status", args: { device_name: "lamp" } }, { name: "get_device_status", args: { device_name: "oven" } }] },
 *   { text: "The lamp is off; there is no oven." }
 * ])
 * Effect.runPromise(program.pipe(Effect.provide(model))).then(console.log)
 * // [ { status: 'off' }, { error: { type: 'ExecutionFailed', message: '"get_device_status" failed: there is no such device' } } ]
 * ```
 *
 * @since 0.3.0
 * @category constructors
 */
export const apply = <R>(registry: Registry.Registry<R>, mocks: Mocks, from?: string): Registry.Registry<R> =>
  Registry.unsafeMake(
    ...registry.names.map((name) => {
      const implementation = registry.tools.get(name)!
      // Own keys only: a function called "constructor" must not find Object's.
      const entries = Object.hasOwn(mocks, name) ? mocks[name] : undefined
      return entries === undefined ? implementation : tool(implementation, entries, from)
    })
  )

/**
 * Parses a mocks file's text: a mapping of function names to their entries.
 *
 * @since 0.3.0
 * @category decoding
 */
export const parse = (text: string, file: string): Either.Either<Mocks, MocksFileError> =>
  Either.flatMap(
    Either.mapLeft(YamlSource.parse(text), (problem) => new MocksFileError({ file, ...defined(problem) })),
    (source) =>
      Json.isPlainObject(source.value)
        ? Either.mapLeft(YamlSource.decode(MockFunctionResponses, source), (problem) => new MocksFileError({ file, ...defined(problem) }))
        : Either.left(new MocksFileError({ file, line: source.lineOf([]), reason: "a mocks file is a mapping of function names to their responses" }))
  )

/**
 * Reads and parses a mocks file (at most 4 MiB, a regular file).
 *
 * @since 0.3.0
 * @category decoding
 */
export const load = (file: string): Effect.Effect<Mocks, MocksFileError, FileSystem.FileSystem> =>
  Telemetry.span("Mocks.load", { file }, () =>
    Effect.flatMap(
      Effect.mapError(BoundedText.read(file, BoundedText.defaultMaxBytes), (reason) => new MocksFileError({ file, reason })),
      (text) => parse(text, file)
    )
  )

const defined = (problem: YamlSource.Problem) => ({
  reason: problem.reason,
  ...(problem.line === undefined ? {} : { line: problem.line }),
  ...(problem.field === undefined ? {} : { field: problem.field })
})
