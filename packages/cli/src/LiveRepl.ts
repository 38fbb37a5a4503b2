/**
 * The interactive chat behind `agentfx live`: reads lines from `Io` and sends each on one `LiveAgent` session,
 * showing the model's text as it streams, each call as it starts (`→`), reports progress (`…`), is answered (`←`),
 * cancelled by the server or lost with its connection (`✗`), each reconnect, and each change of the tools (a registry that follows its
 * MCP servers: the session resumes on a new connection to declare them). Ctrl-C during a turn stops the turn and its calls
 * (they are answered with an error, so the model does not wait) and the session goes on; Ctrl-C twice at an empty
 * prompt, `/exit` or the end of input quits. A message lost with its connection is sent again, once, on the resumed
 * one. A session the server ends, or that cannot reconnect, ends the command.
 * While the first connection is set up a status line says where it goes (and each failed attempt); it is bounded by
 * `connectTimeout`, retries included, and Ctrl-C then stops the command.
 *
 * Commands: `/tools`, `/help`, `/exit`.
 *
 * @since 0.2.0
 */
import type { Registry } from "@agentfx/core"
import { Approval, LiveAgent, LiveModel, ModelError } from "@agentfx/core"
import type * as FileSystem from "@effect/platform/FileSystem"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Queue from "effect/Queue"
import * as Stream from "effect/Stream"
import type * as CliError from "./CliError.js"
import { Interrupted, RunFailed } from "./CliError.js"
import { promptLoop } from "./internal/promptLoop.js"
import { escapeLines, escapeName } from "./internal/terminalText.js"
import { Io } from "./Io.js"
import * as Screen from "./Screen.js"
import * as TerminalApproval from "./TerminalApproval.js"

export interface Options {
  readonly registry: Registry.Registry<FileSystem.FileSystem>
  readonly system?: string | undefined
  readonly concurrency?: number | undefined
  /** Bounds on each turn (`--first-byte-timeout`, `--idle-timeout`, `--turn-timeout`); none when absent. */
  readonly bounds?: Pick<LiveAgent.Options<never>, "firstByteTimeout" | "idleTimeout" | "turnTimeout"> | undefined
  /** Approve every call without asking. */
  readonly autoApprove: boolean
  /** The command's error for a session that cannot start (a refused key reads differently from a dead server). */
  readonly startFailed: (error: LiveAgent.SessionError) => CliError.CliError
  /** Where the connection goes, for the status line while it is set up (`gemini-live-2.5-flash-preview at HOST`). */
  readonly target: string
  /** How long the first connection may take to be set up, retries included (`--connect-timeout`). */
  readonly connectTimeout: Duration.Duration
}

export const prompt = "you> "

export const help = [
  "Type a message and press Enter. Calls show as → (started), ← (answered) and ✗ (cancelled by the server, or lost).",
  "  /tools         list the tools the model can call",
  "  /help          this help",
  "  /exit          quit (so do Ctrl-D and Ctrl-C twice at an empty prompt)",
  "Ctrl-C during a turn stops it and its calls; the session goes on."
].join("\n")

/** The line for a live event other than text, or undefined for those that show nothing. */
export const lineOf = (event: LiveAgent.LiveAgentEvent): string | undefined => {
  switch (event._tag) {
    case "CallFinished": {
      const { record } = event
      const took = ` (${Screen.callTime(record.duration)})`
      const outcome = record.outcome
      const name = escapeName(record.name)
      if (outcome._tag === "Repeated") return `← ${name}: asked again after a reconnect; not run twice`
      if (outcome._tag !== "Answered") return undefined
      return Either.match(outcome.result, {
        onLeft: (error) => `← ${name} failed: ${escapeLines(error.message)}${took}`,
        onRight: (value) => `← ${name}: ${escapeName(Screen.preview(value))}${took}`
      })
    }
    case "CallProgress":
      return `… ${escapeName(event.call.name)}: ${escapeName(Screen.preview(event.response))}`
    case "CallCancelled":
      return `✗ ${escapeName(event.record.name)} ${event.record.outcome._tag === "Stopped" ? "stopped" : "cancelled by the server"}`
    case "CallLost":
      return `✗ ${escapeName(event.record.name)} lost with its connection${event.record.outcome._tag === "Lost" ? `: ${escapeLines(event.record.outcome.reason)}` : ""}`
    case "GoAway":
      return `(the server will close this connection in ${Duration.format(event.timeLeft)}; the session moves to a new one)`
    case "Reconnecting":
      // The reason quotes the server's close reason: escaped, so it cannot drive the terminal.
      return `(connection lost — ${escapeLines(event.reason)}${event.code === undefined ? "" : `, code ${event.code}`}; reconnecting, attempt ${event.attempt}${event.fresh ? "; no resumption handle, so the conversation starts afresh" : ""})`
    case "Connected":
      return event.resumed ? `(reconnected: the session resumed on connection ${event.connection})` : undefined
    case "ToolsChanged": {
      const change = [
        ...(event.added.length === 0 ? [] : [`added ${event.added.map(escapeName).join(", ")}`]),
        ...(event.removed.length === 0 ? [] : [`removed ${event.removed.map(escapeName).join(", ")}`]),
        ...(event.changed.length === 0 ? [] : [`changed ${event.changed.map(escapeName).join(", ")}`])
      ].join("; ")
      return `(the tools changed — ${change}; the session resumes on connection ${event.connection} to declare them)`
    }
    case "Interrupted":
      return "(the model was interrupted)"
    default:
      return undefined
  }
}

/**
 * Opens the session, saying so while it connects: a status line on a terminal (a line when piped), updated with each
 * attempt that failed. The whole of it is bounded by `connectTimeout` (a `ModelTimeout` naming it, with the last
 * failure), and Ctrl-C stops it (the command ends with 130).
 */
const open = <R>(options: Options, io: Io["Type"], opening: Effect.Effect<LiveAgent.Session, LiveAgent.SessionError, R | LiveModel.LiveModel>) =>
  Effect.gen(function* () {
    const connecting = `connecting to ${options.target}…`
    const say = (text: string) => (io.interactive ? io.status(`${text} (Ctrl-C to stop)`) : io.err(`${text}\n`))
    yield* say(connecting)
    let failures = 0
    let last: ModelError.ModelError | undefined
    let starting = true
    // Each attempt's failure is told while the session starts (after that, reconnects are its own events).
    const watched = Effect.updateService(opening, LiveModel.LiveModel, (live) => ({
      ...live,
      connect: (setup: LiveModel.Setup) =>
        live.connect(setup).pipe(
          Effect.tapError((error) =>
            Effect.suspend(() => {
              // A failure nothing retries ends the start at once, with its own error.
              if (!starting || !error.retryable) return Effect.void
              failures += 1
              last = error
              return say(`${connecting} attempt ${failures} failed (${error._tag}: ${escapeLines(error.message)}); trying again`)
            })
          )
        )
    }))
    const timedOut = (): CliError.CliError => {
      const timeout = new ModelError.ModelTimeout({ after: options.connectTimeout, limit: "connect" })
      const before = last === undefined || last._tag === "ModelTimeout" ? "" : `; ${failures} attempt${failures === 1 ? "" : "s"} failed, the last with ${last._tag}: ${last.message}`
      return new RunFailed({ message: `the live session could not start — ModelTimeout: ${timeout.message}${before}` })
    }
    return yield* Effect.raceFirst(
      watched.pipe(Effect.mapError(options.startFailed), Effect.timeoutFail({ duration: options.connectTimeout, onTimeout: timedOut })),
      Effect.zipRight(io.interrupted, Effect.fail(new Interrupted()))
    ).pipe(
      Effect.ensuring(
        Effect.suspend(() => {
          starting = false
          return io.interactive ? io.status("") : Effect.void
        })
      )
    )
  })

/** Runs the live chat until the user quits or the session ends. */
export const run = (options: Options): Effect.Effect<void, CliError.CliError, Io | LiveModel.LiveModel | FileSystem.FileSystem> =>
  Effect.scoped(
    Effect.gen(function* () {
      const io = yield* Io
      const screen = Screen.make(io, { askedFor: options.autoApprove ? undefined : TerminalApproval.asksFor(options.registry) })
      const approval = options.autoApprove ? Approval.allowAll : TerminalApproval.layer(screen)
      const session = yield* open(
        options,
        io,
        LiveAgent.session({ ...options.bounds, registry: options.registry, system: options.system, concurrency: options.concurrency }).pipe(Effect.provide(approval))
      )
      // The printer shows the session's events; `completed` tells the prompt loop which turns are on screen.
      const completed = yield* Queue.unbounded<number>()
      const events = yield* session.subscribe
      yield* Effect.forkScoped(
        Stream.runForEach(events, (event) => {
          if (event._tag === "TextDelta") return screen.text(event.text)
          if (event._tag === "CallStarted") return screen.event(event)
          if (event._tag === "TurnComplete") return Effect.zipRight(screen.endLine, Queue.offer(completed, event.turn.turn))
          const line = lineOf(event)
          if (line === undefined) return Effect.void
          return event._tag === "Reconnecting" || event._tag === "GoAway" || event._tag === "Connected" || event._tag === "ToolsChanged" ? screen.note(line) : screen.line(line)
        }).pipe(Effect.ignore)
      )
      yield* io.out("agentfx live — /help for commands; Ctrl-C stops a turn; /exit or Ctrl-D quits.\n")

      // The tools declared now: a registry that follows its MCP servers may have changed them since the start.
      const tools = Effect.flatMap(session.declarations, (declarations) =>
        Effect.forEach(declarations, (declaration) => io.out(`  ${escapeName(declaration.name)} — ${escapeLines(declaration.description)}\n`))
      )

      /** Sends one message and waits until its turn is on screen; a session that ended is the command's end. */
      const send = (message: string): Effect.Effect<void, RunFailed> =>
        Effect.gen(function* () {
          // A message lost with its connection goes out again on the resumed one (once), as a person would say it again.
          const outcome = yield* Effect.raceFirst(Effect.either(session.send(message, { resendOnTurnLost: true })), Effect.as(io.interrupted, "stopped" as const))
          if (outcome === "stopped") {
            yield* screen.line("(stopped — the turn's calls were cancelled; the session goes on)")
            // The model answers the cancelled calls' errors in the same turn: show that before the next prompt, so a
            // new message starts a turn of its own. A second Ctrl-C, or a model that stays silent, stops waiting.
            yield* Effect.raceFirst(Queue.take(completed), io.interrupted).pipe(Effect.timeout("15 seconds"), Effect.ignore)
            return
          }
          if (Either.isRight(outcome)) {
            while ((yield* Queue.take(completed)) < outcome.right.turn) continue
            return
          }
          const error = outcome.left
          // The message may quote the server (a close reason): escaped, so it cannot drive the terminal.
          if (error._tag === "TurnLost" || error._tag === "Unavailable") return yield* screen.note(`(${escapeLines(error.message)}; say it again if you want an answer)`)
          // The turn was stopped (its calls too) and the session goes on; text it printed stays, marked as cut.
          if (error._tag === "ModelTimeout") return yield* screen.note(`(ModelTimeout: ${escapeLines(error.message)}; the turn was stopped — say it again if you want an answer)`)
          return yield* Effect.fail(new RunFailed({ message: `the live session ended — ${error._tag}: ${error.message}` }))
        })

      yield* promptLoop(io, prompt, (line) => {
        if (line === "/exit" || line === "/quit") return Effect.succeed(false)
        const done =
          line === "/help"
            ? io.out(`${help}\n`)
            : line === "/tools"
              ? tools
              : line.startsWith("/")
                ? io.err(`unknown command ${line.split(/\s+/, 1)[0]} — /help lists the commands\n`)
                : send(line)
        return Effect.as(done, true)
      })
    })
  )
