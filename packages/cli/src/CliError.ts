/**
 * The typed errors of the `agentfx` command, each with its exit code: 2 when the command could not start because
 * of what it was given (arguments, files, configuration), 1 when it ran and failed, 130 when Ctrl-C stopped it.
 * (@effect/cli's own validation errors — unknown option, missing argument — also exit with 2.)
 *
 * @since 0.1.0
 */
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"

/** Marks every error of the command, whatever its tag. */
export const TypeId: unique symbol = Symbol.for("@agentfx/cli/CliError")
export type TypeId = typeof TypeId

/** Exit code of a command that ran and failed (a model error, an eval below its threshold). */
export const failed = 1
/** Exit code of a command given bad arguments, files or configuration. */
export const usage = 2
/** Exit code of a command stopped by Ctrl-C. */
export const interrupted = 130

/** Arguments or options that cannot work together, or a value the command cannot use. */
export class UsageError extends Schema.TaggedError<UsageError>()("UsageError", { message: Schema.String }) {
  readonly [TypeId]: TypeId = TypeId
  get exitCode(): number {
    return usage
  }
}

/**
 * A file or directory the command was given cannot be read or is invalid. `problems` lists every problem found
 * (file, line, field, what), so one run shows them all.
 */
export class InputError extends Schema.TaggedError<InputError>()("InputError", {
  message: Schema.String,
  problems: Schema.optionalWith(Schema.Array(Schema.String), { default: () => [] }),
  /** What `--verbose` adds (a decoder's full report, say). */
  details: Schema.optional(Schema.String)
}) {
  readonly [TypeId]: TypeId = TypeId
  get exitCode(): number {
    return usage
  }
}

/**
 * The chosen provider is not configured (no API key, a bad setting) or refused the key. Never holds a key.
 * `exitCode` is 2 for a configuration the command could see was wrong before it ran, 1 for a key the provider
 * refused while it ran.
 */
export class ProviderError extends Schema.TaggedError<ProviderError>()("ProviderError", {
  provider: Schema.String,
  message: Schema.String,
  refused: Schema.optionalWith(Schema.Boolean, { default: () => false })
}) {
  readonly [TypeId]: TypeId = TypeId
  get exitCode(): number {
    return this.refused ? failed : usage
  }
}

/** The agent run failed: the model could not be reached, refused the request, or the transcript broke. */
export class RunFailed extends Schema.TaggedError<RunFailed>()("RunFailed", {
  message: Schema.String,
  /** What `--verbose` adds: the cause as the provider reported it. */
  details: Schema.optional(Schema.String)
}) {
  readonly [TypeId]: TypeId = TypeId
  get exitCode(): number {
    return failed
  }
}

/** A file the command writes (a report, a saved session) could not be written. */
export class OutputError extends Schema.TaggedError<OutputError>()("OutputError", { message: Schema.String }) {
  readonly [TypeId]: TypeId = TypeId
  get exitCode(): number {
    return failed
  }
}

/**
 * The session file is held by another `agentfx chat` (its lock file names it). Nothing was read or written: the
 * command stops before loading the session, so neither process loses a message.
 */
export class SessionInUse extends Schema.TaggedError<SessionInUse>()("SessionInUse", {
  session: Schema.String,
  lockFile: Schema.String,
  pid: Schema.optional(Schema.Number),
  hostname: Schema.optional(Schema.String),
  startedAt: Schema.optional(Schema.String)
}) {
  readonly [TypeId]: TypeId = TypeId
  override get message(): string {
    const holder = this.pid === undefined ? "another process (its lock file cannot be read)" : `pid ${this.pid}${this.hostname === undefined ? "" : ` on ${this.hostname}`}${this.startedAt === undefined ? "" : ` since ${this.startedAt}`}`
    return `session ${this.session} is in use by ${holder}; quit that chat first, use another --session, or remove ${this.lockFile} if no agentfx runs there any more`
  }
  get exitCode(): number {
    return usage
  }
}

/** The eval pass rate is below the threshold. */
export class BelowThreshold extends Schema.TaggedError<BelowThreshold>()("BelowThreshold", {
  passRate: Schema.Number,
  threshold: Schema.Number
}) {
  readonly [TypeId]: TypeId = TypeId
  override get message(): string {
    const percent = (fraction: number) => `${Number((fraction * 100).toFixed(2))} %`
    return `the pass rate ${percent(this.passRate)} is below the threshold ${percent(this.threshold)}`
  }
  get exitCode(): number {
    return failed
  }
}

/** The eval stopped early (`--bail`): it did not run every case, so it does not pass. */
export class EvalStopped extends Schema.TaggedError<EvalStopped>()("EvalStopped", {
  bail: Schema.Number,
  notRun: Schema.Number
}) {
  readonly [TypeId]: TypeId = TypeId
  override get message(): string {
    return `the eval stopped after ${this.bail} case${this.bail === 1 ? "" : "s"} that did not pass (--bail): ${this.notRun} case${this.notRun === 1 ? " was" : "s were"} not run`
  }
  get exitCode(): number {
    return failed
  }
}

/** Cases that passed in the baseline do not pass now (`--fail-on-regression`). */
export class Regressed extends Schema.TaggedError<Regressed>()("Regressed", {
  baseline: Schema.String,
  ids: Schema.Array(Schema.String)
}) {
  readonly [TypeId]: TypeId = TypeId
  override get message(): string {
    const count = this.ids.length === 1 ? "1 case passes" : `${this.ids.length} cases pass`
    return `${count} in ${this.baseline} and not now: ${this.ids.join(", ")}`
  }
  get exitCode(): number {
    return failed
  }
}

/** Ctrl-C stopped the command. */
export class Interrupted extends Schema.TaggedError<Interrupted>()("Interrupted", {}) {
  readonly [TypeId]: TypeId = TypeId
  override get message(): string {
    return "interrupted"
  }
  get exitCode(): number {
    return interrupted
  }
}

export type CliError = UsageError | InputError | ProviderError | RunFailed | OutputError | SessionInUse | BelowThreshold | EvalStopped | Regressed | Interrupted

/** True for every error of the command (and nothing else): it carries the `TypeId`. */
export const isCliError = (value: unknown): value is CliError => Predicate.hasProperty(value, TypeId)
