/**
 * A tool: a name, a description, a parameters Schema and an Effect handler. The declaration the model sees is
 * derived from the Schema, and the arguments the model sends are decoded with it before the handler runs.
 *
 * @example
 * ```ts
 * import { Tool } from "@agentfx/core"
 * import { Effect, Schema } from "effect"
 *
 * const getWeather = Tool.make("get_weather", {
 *   description: "Current weather for a city",
 *   parameters: Schema.Struct({ city: Schema.String }),
 *   success: Schema.Struct({ celsius: Schema.Number }),
 *   handler: ({ city }) => Effect.succeed({ celsius: city === "Oslo" ? 7 : 20 })
 * })
 * ```
 *
 * @since 0.1.0
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as JSONSchema from "effect/JSONSchema"
import * as Option from "effect/Option"
import type * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as Dialect from "./Dialect.js"
import { refusal } from "./internal/effectVersion.js"
import type { FunctionDeclaration } from "./FunctionDeclaration.js"
import { describeFailure, issuesOf, toJson } from "./internal/json.js"
import type { JsonObject } from "./Json.js"
import { isPlainObject } from "./Json.js"
import type { Scheduling } from "./LiveModel.js"
import type { ArgumentIssue } from "./ToolError.js"

/**
 * A tool definition that cannot work (bad name, parameters that are not an object schema, ...).
 *
 * @since 0.1.0
 * @category errors
 */
export class InvalidToolDefinition extends Schema.TaggedError<InvalidToolDefinition>()("InvalidToolDefinition", {
  name: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return `tool "${this.name}": ${this.reason}`
  }
}

/**
 * A failure Schema; `Schema.Never` (the default) means the handler cannot fail.
 *
 * @since 0.1.0
 * @category models
 */
export type FailureSchema = Schema.Schema.AnyNoContext | typeof Schema.Never

/**
 * How one progress report is heard by a live model.
 *
 * @since 0.3.0
 * @category models
 */
export interface ProgressOptions {
  /** Default `"silent"`: the model only adds it to its context. */
  readonly scheduling?: Scheduling | undefined
}

/**
 * What a handler knows about the call it serves, and what it may say before its result.
 *
 * @since 0.1.0
 * @category models
 */
export interface ToolContext {
  readonly callId: string
  readonly name: string
  /**
   * Live sessions, non-blocking tools: tells the model how the call is going, now — a response for the call with
   * `willContinue: true`, heard as `scheduling` says (default `"silent"`), rendered as a result is (`{output: value}`
   * unless a plain object). The result the handler returns is the final response and closes the call; a report after
   * it, after the call was cancelled or lost, or while the session has no connection for it, goes nowhere. A blocking
   * tool's report is only an event of the session (`CallProgress`): a live server takes progress only for
   * non-blocking calls. Outside a live session (the agent loop) it does nothing. A value that is not JSON fails the
   * call as a result that is not JSON does.
   *
   * @example
   * handler: ({ route }, { progress }) => Effect.gen(function* () {
   *   yield* progress({ searched: "outbound" })                          // silent: context only
   *   yield* progress({ found: 3 }, { scheduling: "whenIdle" })          // the model speaks of it when it can
   *   return yield* search(route)                                        // the final response
   * })
   */
  readonly progress: (value: unknown, options?: ProgressOptions) => Effect.Effect<void>
  /**
   * Live sessions, non-blocking tools: the scheduling of the final response, instead of the tool's (the last one
   * given before the handler returns counts). Elsewhere it does nothing.
   */
  readonly finalScheduling: (scheduling: Scheduling) => Effect.Effect<void>
}

const nowhere = (): Effect.Effect<void> => Effect.void

/**
 * The context of a call whose progress goes nowhere: what the agent loop gives handlers, and what a test calling a
 * tool's `run` or `handler` directly passes.
 *
 * @example
 * ```ts
 * import { Tool } from "@agentfx/core"
 * import { Effect, Schema } from "effect"
 *
 * const getWeather = Tool.make("get_weather", {
 *   description: "Current temperature of a city in °C",
 *   parameters: Schema.Struct({ city: Schema.String }),
 *   success: Schema.Struct({ celsius: Schema.Number }),
 *   handler: ({ city }, { progress }) => progress({ looking: city }).pipe(Effect.as({ celsius: city === "Oslo" ? 7 : 20 }))
 * })
 *
 * // a test calls the handler directly; the progress it reports goes nowhere
 * Effect.runPromise(getWeather.handler({ city: "Oslo" }, Tool.context("call_1", "get_weather"))).then(console.log) // { celsius: 7 }
 * ```
 *
 * @since 0.3.0
 * @category constructors
 */
export const context = (callId: string, name: string): ToolContext => ({ callId, name, progress: nowhere, finalScheduling: nowhere })

/**
 * Why a handler did not produce a result; the executor turns it into `ExecutionFailed`.
 *
 * @since 0.1.0
 * @category models
 */
export interface HandlerFailure {
  readonly cause: unknown
  readonly defect: boolean
}

/**
 * A tool with its types erased, as the registry and executor hold it. `R` is what its handler requires.
 * Use `make` (typed, Schema-based) or `Registry.fromFunctions` (untyped) to build one.
 *
 * @since 0.1.0
 * @category models
 */
export interface Tool<out R = never> {
  readonly name: string
  readonly description: string
  readonly declaration: FunctionDeclaration
  readonly timeout: Option.Option<Duration.Duration>
  /** Decodes untrusted arguments (already checked to be a safe JSON object). */
  readonly decode: (args: JsonObject) => Either.Either<unknown, ReadonlyArray<ArgumentIssue>>
  /** Whether this call, with these decoded arguments, must be approved first. */
  readonly needsApproval: (args: unknown) => boolean
  /** Runs the handler on decoded arguments and returns its result as JSON. Never fails with anything else. */
  readonly run: (args: unknown, context: ToolContext) => Effect.Effect<unknown, HandlerFailure, R>
  /**
   * Set only for a non-blocking tool (its declaration says `behavior: "nonBlocking"`): when a live model hears its
   * answers. Absent means blocking.
   */
  readonly scheduling?: Scheduling | undefined
}

/**
 * A tool whatever it requires: the element type of tool lists (`Registry.make`).
 *
 * @since 0.1.0
 * @category models
 */
export type Any = Tool<any> // eslint-disable-line @typescript-eslint/no-explicit-any -- variance marker only

/**
 * What a tool's handler requires.
 *
 * @since 0.1.0
 * @category models
 */
export type Context<T> = T extends Tool<infer R> ? R : never

const namePattern = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/

/**
 * Checks a function name against the rules every provider accepts.
 *
 * @since 0.1.0
 */
export const validateName = (name: string): Either.Either<string, InvalidToolDefinition> =>
  namePattern.test(name)
    ? Either.right(name)
    : Either.left(
        new InvalidToolDefinition({
          name,
          reason: "a name starts with a letter or _, holds only letters, digits, _ and -, and is at most 64 characters"
        })
      )

/**
 * The options of `make`; the handler's argument, result and failure types come from the Schemas.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options<
  Parameters extends Schema.Schema.AnyNoContext,
  Success extends Schema.Schema.AnyNoContext,
  Failure extends FailureSchema,
  R
> {
  readonly description: string
  readonly parameters: Parameters
  readonly success?: Success
  readonly failure?: Failure
  readonly handler: (
    args: Schema.Schema.Type<Parameters>,
    context: ToolContext
  ) => Effect.Effect<Schema.Schema.Type<Success>, Schema.Schema.Type<Failure>, R>
  /** Longer than this and the handler is interrupted with `ToolTimeout`. */
  readonly timeout?: Duration.DurationInput
  /** `true`, or a predicate on the decoded arguments: ask the `Approval` service before running. */
  readonly needsApproval?: boolean | ((args: Schema.Schema.Type<Parameters>) => boolean)
  /** Live sessions only: the model keeps talking while this tool runs (see `NonBlocking`). */
  readonly nonBlocking?: NonBlocking
}

/**
 * Marks a tool non-blocking for live models (Gemini Live `behavior: NON_BLOCKING`): the model keeps talking while
 * it runs, and hears its answer as `scheduling` says — `"interrupt"` (stop and speak about it), `"whenIdle"` (once
 * done speaking; the default) or `"silent"` (context only). `false` is blocking. REST models ignore it.
 *
 * @example
 * ```ts
 * import { Tool } from "@agentfx/core"
 * import { Effect, Schema } from "effect"
 *
 * const dimLights = Tool.make("dim_lights", {
 *   description: "Dims the lights slowly",
 *   parameters: Schema.Struct({ level: Schema.Number }),
 *   handler: ({ level }) => Effect.succeed({ level }),
 *   nonBlocking: { scheduling: "silent" }
 * })
 * ```
 *
 * @since 0.1.0
 * @category models
 */
export type NonBlocking = boolean | { readonly scheduling: Scheduling }

/** The scheduling of a `NonBlocking` option: undefined for a blocking tool. */
const schedulingOf = (option: NonBlocking | undefined): Scheduling | undefined =>
  typeof option === "object" ? option.scheduling : option === true ? "whenIdle" : undefined

/** A declaration with the behavior its scheduling implies (unchanged for a blocking tool). */
const declare = (declaration: FunctionDeclaration, scheduling: Scheduling | undefined): FunctionDeclaration =>
  scheduling === undefined ? declaration : { ...declaration, behavior: "nonBlocking" }

/**
 * A tool built by `make`: the erased `Tool` plus its Schemas and typed handler, for direct use in tests.
 *
 * @since 0.1.0
 * @category models
 */
export interface Typed<
  Parameters extends Schema.Schema.AnyNoContext,
  Success extends Schema.Schema.AnyNoContext,
  Failure extends FailureSchema,
  R
> extends Tool<R> {
  readonly parameters: Parameters
  readonly success: Success
  readonly failure: Failure
  readonly handler: Options<Parameters, Success, Failure, R>["handler"]
}

/** JSON Schema of a parameters Schema, normalised (throws `InvalidToolDefinition`). */
const parametersJsonSchema = (name: string, schema: Schema.Schema.AnyNoContext): JsonObject => {
  let raw: JsonObject
  try {
    raw = JSONSchema.make(schema) as unknown as JsonObject
  } catch (error) {
    throw new InvalidToolDefinition({
      name,
      reason: `its parameters Schema has no JSON Schema form: ${error instanceof Error ? error.message : String(error)}`
    })
  }
  return Either.getOrThrowWith(
    // Stryker disable next-line StringLiteral: normalise compiles the parameters only; the description is not read
    Dialect.normalise({ name, description: "", parameters: raw }),
    (error) => new InvalidToolDefinition({ name, reason: error.reason })
  )
}

/**
 * Builds a typed tool. Throws `InvalidToolDefinition` for a definition that can never work (bad name, a
 * parameters Schema that is not an object): these are programming errors, found when the module loads.
 *
 * @since 0.1.0
 */
export const make = <
  const Name extends string,
  Parameters extends Schema.Schema.AnyNoContext,
  Success extends Schema.Schema.AnyNoContext = typeof Schema.Unknown,
  Failure extends FailureSchema = typeof Schema.Never,
  R = never
>(
  name: Name,
  options: Options<Parameters, Success, Failure, R>
): Typed<Parameters, Success, Failure, R> => {
  Either.getOrThrowWith(validateName(name), (error) => error)
  checkSchemas(name, options)
  const parameters = parametersJsonSchema(name, options.parameters)
  const decodeArgs = Schema.decodeUnknownEither(options.parameters, { errors: "all", onExcessProperty: "error" })
  const success = (options.success ?? Schema.Unknown) as Success
  const failure = (options.failure ?? Schema.Never) as Failure
  const encodeSuccess = options.success === undefined ? undefined : Schema.encodeUnknownEither(options.success)
  const encodeFailure = options.failure === undefined ? undefined : Schema.encodeUnknownEither(options.failure as Schema.Schema<unknown, unknown>)
  const approval = options.needsApproval
  const handler = options.handler
  const scheduling = schedulingOf(options.nonBlocking)

  const asJson = (value: unknown): Either.Either<unknown, HandlerFailure> => {
    const encoded = encodeSuccess === undefined ? Either.right(value) : encodeSuccess(value)
    if (Either.isLeft(encoded)) {
      return Either.left({ cause: { message: `the result does not match the success Schema: ${issuesText(encoded.left)}` }, defect: true })
    }
    return Either.mapLeft(toJson(encoded.right), (reason) => ({ cause: { message: `the result is not JSON: ${reason}` }, defect: true }))
  }

  return {
    name,
    description: options.description,
    declaration: declare({ name, description: options.description, parameters }, scheduling),
    ...(scheduling === undefined ? {} : { scheduling }),
    timeout: options.timeout === undefined ? Option.none() : Option.some(Duration.decode(options.timeout)),
    parameters: options.parameters,
    success,
    failure,
    handler,
    decode: (args) => Either.mapLeft(decodeArgs(args), issuesOf),
    needsApproval:
      approval === undefined || approval === false
        ? () => false
        : approval === true
          ? () => true
          : (args) => approval(args as Schema.Schema.Type<Parameters>),
    run: (args, context) =>
      Effect.suspend(() => ownEffect(handler(args as Schema.Schema.Type<Parameters>, context))).pipe(
        Effect.mapError((error): HandlerFailure => {
          if (encodeFailure === undefined) return { cause: describeFailure(error), defect: false }
          const encoded = encodeFailure(error)
          if (Either.isLeft(encoded) || !isJsonLike(encoded.right)) return { cause: describeFailure(error), defect: false }
          // A typed error's own `message` getter is absent from its encoding: keep it for the model. (The
          // default message of a TaggedError only repeats its fields, so it is left out.)
          const failure: unknown = error
          const message = failure instanceof Error && ownMessage(failure) ? failure.message : undefined
          return {
            cause: message !== undefined && isPlainObject(encoded.right) && !("message" in encoded.right) ? { ...encoded.right, message } : encoded.right,
            defect: false
          }
        }),
        Effect.flatMap((value) => asJson(value))
      )
  }
}

/**
 * The Schemas of a definition, made by the effect we run on (a second copy of another major fails deep inside
 * JSON Schema generation otherwise): throws `InvalidToolDefinition` saying which effect made it and how to fix it.
 */
const checkSchemas = (name: string, options: { readonly parameters: unknown; readonly success?: unknown; readonly failure?: unknown }): void => {
  for (const [role, schema] of [["parameters", options.parameters], ["success", options.success], ["failure", options.failure]] as const) {
    if (role !== "parameters" && schema === undefined) continue
    const reason = refusal(schema, "Schema")
    if (reason !== undefined) throw new InvalidToolDefinition({ name, reason: `its ${role} Schema ${reason}` })
  }
}

/** What a handler returned, when it is an Effect we can run; otherwise a defect saying why (the call then fails). */
const ownEffect = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> => {
  const reason = refusal(effect, "Effect")
  return reason === undefined ? effect : Effect.die(new Error(`the handler's result ${reason}`))
}

const isJsonLike = (value: unknown): boolean => Either.isRight(toJson(value))

const ownMessage = (error: Error): boolean =>
  error.message !== "" && Object.getOwnPropertyDescriptor(Object.getPrototypeOf(error), "message") !== undefined

const issuesText = (error: ParseResult.ParseError): string =>
  issuesOf(error)
    .map((issue) => (issue.path === "" ? issue.message : `${issue.path}: ${issue.message}`))
    .join("; ")

/**
 * The plain-function form used by `Registry.fromFunctions`: untyped arguments, any sync or async result.
 *
 * @since 0.1.0
 * @category models
 */
export interface FunctionSpec {
  readonly description?: string
  /** JSON Schema of the arguments (default: an object with any properties). */
  readonly parameters?: JsonObject
  readonly run: (args: Record<string, unknown>, context: ToolContext & { readonly signal: AbortSignal }) => unknown
  readonly timeout?: Duration.DurationInput
  readonly needsApproval?: boolean
  /** Live sessions only: the model keeps talking while this function runs (see `NonBlocking`). */
  readonly nonBlocking?: NonBlocking
}

/**
 * Builds an untyped tool from a plain function (the GeminiEx `create_registry` convenience).
 *
 * @since 0.1.0
 */
export const fromFunction = (name: string, spec: FunctionSpec | FunctionSpec["run"]): Either.Either<Tool, InvalidToolDefinition> => {
  const full: FunctionSpec = typeof spec === "function" ? { run: spec } : spec
  return Either.flatMap(validateName(name), () => {
    const declared = full.parameters ?? { type: "object", properties: {}, additionalProperties: true }
    // Stryker disable next-line StringLiteral: normalise compiles the parameters only; the description is not read
    const parameters = Dialect.normalise({ name, description: "", parameters: declared })
    if (Either.isLeft(parameters)) return Either.left(new InvalidToolDefinition({ name, reason: parameters.left.reason }))
    const needsApproval = full.needsApproval === true
    const scheduling = schedulingOf(full.nonBlocking)
    const tool: Tool = {
      name,
      description: full.description ?? "",
      declaration: declare({ name, description: full.description ?? "", parameters: parameters.right }, scheduling),
      ...(scheduling === undefined ? {} : { scheduling }),
      timeout: full.timeout === undefined ? Option.none() : Option.some(Duration.decode(full.timeout)),
      decode: (args) => Either.right(args),
      needsApproval: () => needsApproval,
      run: (args, context) =>
        Effect.async<unknown, HandlerFailure>((resume, signal) => {
          let result: unknown
          try {
            result = full.run(args as Record<string, unknown>, { ...context, signal })
          } catch (error) {
            resume(Effect.fail({ cause: describeFailure(error), defect: false }))
            return
          }
          const settle = (value: unknown) =>
            resume(Either.match(toJson(value), {
              onLeft: (reason) => Effect.fail({ cause: { message: `the result is not JSON: ${reason}` }, defect: true }),
              onRight: Effect.succeed
            }))
          if (typeof (result as PromiseLike<unknown> | null)?.then !== "function") {
            settle(result)
          } else {
            ;(result as PromiseLike<unknown>).then(settle, (error: unknown) =>
              resume(Effect.fail({ cause: describeFailure(error), defect: false }))
            )
          }
        })
    }
    return Either.right(tool)
  })
}

/**
 * The same tool, non-blocking for live models with the given scheduling (default `"whenIdle"`), or blocking again
 * with `false`: for tools built elsewhere (a scenario's, a shared module's).
 *
 * @example
 * ```ts
 * import { Registry, Tool } from "@agentfx/core"
 * import { Effect, Schema } from "effect"
 *
 * const searchFlights = Tool.make("search_flights", {
 *   description: "Searches flights (slow)",
 *   parameters: Schema.Struct({ to: Schema.String }),
 *   handler: ({ to }) => Effect.succeed({ flights: [`OSL-${to}`] })
 * })
 * const bookFlight = Tool.make("book_flight", {
 *   description: "Books a flight",
 *   parameters: Schema.Struct({ flight: Schema.String }),
 *   handler: ({ flight }) => Effect.succeed({ booked: flight })
 * })
 *
 * const registry = Registry.unsafeMake(Tool.nonBlocking(searchFlights, { scheduling: "interrupt" }), bookFlight)
 * ```
 *
 * @since 0.1.0
 */
export const nonBlocking = <T extends Any>(tool: T, option: NonBlocking = true): T => {
  const scheduling = schedulingOf(option)
  const { behavior: _, ...declaration } = tool.declaration
  const { scheduling: __, ...rest } = tool
  return {
    ...rest,
    declaration: declare(declaration, scheduling),
    ...(scheduling === undefined ? {} : { scheduling })
  } as T
}
