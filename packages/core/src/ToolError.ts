/**
 * The typed errors of tool execution. None is ever thrown: the executor returns them as values, and
 * `Executor.buildResponses` renders each into an error response the model can act on.
 *
 * @since 0.1.0
 */
import * as Duration from "effect/Duration"
import * as Schema from "effect/Schema"

/**
 * The model called a function the registry does not have.
 *
 * @since 0.1.0
 * @category errors
 */
export class UnknownFunction extends Schema.TaggedError<UnknownFunction>()("UnknownFunction", {
  name: Schema.String,
  available: Schema.Array(Schema.String)
}) {
  override get message(): string {
    return `unknown function "${this.name}"; available: ${this.available.length === 0 ? "none" : this.available.join(", ")}`
  }
}

/**
 * One problem with the arguments, at a path such as `items[2].sku` (empty for the whole object).
 *
 * @since 0.1.0
 */
export const ArgumentIssue = Schema.Struct({ path: Schema.String, message: Schema.String })
/**
 * One problem with the arguments, at a path such as `items[2].sku` (empty for the whole object).
 *
 * @since 0.1.0
 * @category models
 */
export interface ArgumentIssue extends Schema.Schema.Type<typeof ArgumentIssue> {}

/**
 * The arguments did not decode against the tool's parameters Schema, or were unsafe to decode at all.
 *
 * @since 0.1.0
 * @category errors
 */
export class InvalidArguments extends Schema.TaggedError<InvalidArguments>()("InvalidArguments", {
  name: Schema.String,
  issues: Schema.Array(ArgumentIssue)
}) {
  override get message(): string {
    const lines = this.issues.map((issue) => (issue.path === "" ? issue.message : `${issue.path}: ${issue.message}`))
    return `invalid arguments for "${this.name}": ${lines.join("; ")}`
  }
}

/**
 * The handler failed (its typed failure, encoded with the tool's `failure` Schema when it has one) or died
 * (a thrown exception or defect; `defect` is then true). `cause` is always JSON-safe.
 *
 * @since 0.1.0
 * @category errors
 */
export class ExecutionFailed extends Schema.TaggedError<ExecutionFailed>()("ExecutionFailed", {
  name: Schema.String,
  cause: Schema.Unknown,
  defect: Schema.Boolean
}) {
  override get message(): string {
    return `"${this.name}" failed: ${describe(this.cause)}`
  }
}

/**
 * The handler did not finish within its timeout; it was interrupted.
 *
 * @since 0.1.0
 * @category errors
 */
export class ToolTimeout extends Schema.TaggedError<ToolTimeout>()("ToolTimeout", {
  name: Schema.String,
  after: Schema.DurationFromMillis
}) {
  override get message(): string {
    return `"${this.name}" timed out after ${Duration.format(this.after)}`
  }
}

/**
 * The `Approval` service refused a tool that needs approval; the tool did not run.
 *
 * @since 0.1.0
 * @category errors
 */
export class ApprovalDenied extends Schema.TaggedError<ApprovalDenied>()("ApprovalDenied", {
  name: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return `"${this.name}" was not approved: ${this.reason}`
  }
}

/**
 * The schema of every tool error (serialisable: call records keep them).
 *
 * @since 0.1.0
 */
export const ToolError = Schema.Union(UnknownFunction, InvalidArguments, ExecutionFailed, ToolTimeout, ApprovalDenied)
/**
 * Why a call has no result. The model is sent it as an error response and may correct itself.
 *
 * @example
 * ```ts
 * import { Agent, Registry } from "@agentfx/core"
 * import { Scripted } from "@agentfx/core/testing"
 * import { Effect, Either } from "effect"
 *
 * const program = Effect.gen(function* () {
 *   const result = yield* Agent.run({ registry: Registry.empty, prompt: "Weather?" })
 *   // the model called a tool that does not exist: an UnknownFunction error, sent back to the model
 *   return result.calls.map((record) => (Either.isLeft(record.result) ? record.result.left.message : "ok"))
 * })
 *
 * const model = Scripted.layer([{ calls: [{ name: "get_weather", args: {} }] }, { text: "I cannot tell." }])
 * Effect.runPromise(program.pipe(Effect.provide(model))).then(console.log)
 * ```
 *
 * @since 0.1.0
 * @category models
 */
export type ToolError = UnknownFunction | InvalidArguments | ExecutionFailed | ToolTimeout | ApprovalDenied

/** A short human text for an arbitrary JSON-safe cause. */
const describe = (cause: unknown): string => {
  if (typeof cause === "string") return cause
  if (typeof cause === "object" && cause !== null && "message" in cause && typeof cause.message === "string") {
    return cause.message
  }
  if (typeof cause === "object" && cause !== null && "_tag" in cause && typeof cause._tag === "string") {
    const { _tag, ...fields } = cause
    return Object.keys(fields).length === 0 ? _tag : `${_tag} ${safeStringify(fields)}`
  }
  return safeStringify(cause)
}

const safeStringify = (cause: unknown): string => {
  try {
    return JSON.stringify(cause) ?? String(cause)
  } catch {
    return String(cause)
  }
}
