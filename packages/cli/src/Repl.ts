/**
 * The interactive chat behind `agentfx chat`: reads lines from `Io`, streams each reply with its tool calls, asks
 * before tools that need approval, and keeps one `Chat` session across messages. Ctrl-C during a reply cancels that
 * reply only (the session keeps everything answered before it); Ctrl-C twice at an empty prompt, `/exit` or the end
 * of input quits. With a session file, the session is saved after every message and every change.
 *
 * Commands: `/save FILE`, `/load FILE`, `/system [TEXT]`, `/tools`, `/help`, `/exit`.
 *
 * @since 0.1.0
 */
import type { LanguageModel, Registry, Transcript } from "@agentfx/core"
import { Approval, Chat, Turn } from "@agentfx/core"
import type * as FileSystem from "@effect/platform/FileSystem"
import type * as Path from "@effect/platform/Path"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import { InputError } from "./CliError.js"
import * as ChatGreeting from "./internal/chatGreeting.js"
import { promptLoop } from "./internal/promptLoop.js"
import { escapeName, escapeLines } from "./internal/terminalText.js"
import { describeAgentError } from "./internal/withModel.js"
import { Io } from "./Io.js"
import * as Screen from "./Screen.js"
import * as SessionFile from "./SessionFile.js"
import * as TerminalApproval from "./TerminalApproval.js"

export interface Options {
  readonly registry: Registry.Registry<FileSystem.FileSystem>
  /** The system instruction; a resumed session's own is used when this is not given. */
  readonly system?: string | undefined
  readonly maxTurns?: number | undefined
  readonly concurrency?: number | undefined
  /** Bounds on each model answer and on each message's waiting for them, and the temperature (`--first-byte-timeout`, ...). */
  readonly request?: Partial<Pick<Chat.Options<never>, "firstByteTimeout" | "idleTimeout" | "turnTimeout" | "runTimeout" | "temperature">> | undefined
  /** Approve every call without asking. */
  readonly autoApprove: boolean
  /** A named session: resumed from `path` when it exists, saved there after every message. */
  readonly session?: SessionChoice | undefined
}

/** A named session and its file's text when it exists (checked up front by `SessionFile.load`). */
export interface SessionChoice {
  readonly name: string
  readonly path: string
  readonly saved: Option.Option<string>
}

/** The prompt before each message. */
export const prompt = ChatGreeting.prompt

export const help = [
  "Type a message and press Enter. Tool calls show as → (started) and ← (finished).",
  "  /save FILE     save the session to FILE (JSON)",
  "  /load FILE     continue a saved session",
  "  /system TEXT   set the system instruction (/system alone shows it)",
  "  /tools         list the tools the model can call",
  "  /help          this help",
  "  /exit          quit (so do Ctrl-D and Ctrl-C twice at an empty prompt)",
  "Ctrl-C during a reply cancels the reply; the session keeps everything before it."
].join("\n")

const SessionJson = Schema.parseJson(Chat.Session)

/** Messages typed by the user in a transcript (turns of function responses are not messages). */
export const messageCount = (transcript: ReadonlyArray<Turn.Turn>): number =>
  transcript.filter((turn) => turn.role === "user" && Turn.responses(turn).length === 0).length

const messages = (transcript: ReadonlyArray<Turn.Turn>): string => {
  const n = messageCount(transcript)
  return `${n} message${n === 1 ? "" : "s"}`
}

/** Runs the chat until the user quits. */
export const run = (options: Options): Effect.Effect<void, InputError, Io | LanguageModel.LanguageModel | FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function* () {
    const io = yield* Io
    const base = { ...options.request, registry: options.registry, maxTurns: options.maxTurns, concurrency: options.concurrency }
    const session = options.session
    const saved = session === undefined ? Option.none<string>() : session.saved
    const created: Effect.Effect<Chat.Chat<FileSystem.FileSystem>, Transcript.TranscriptViolation | Chat.SessionDecodeError> = Option.isSome(saved)
      ? Chat.fromJson(saved.value, { ...base, system: options.system })
      : Chat.make({ ...base, system: options.system })
    const chat = yield* Effect.mapError(
      created,
      (error) => {
        const file = session?.path ?? "the session"
        const why = Option.isSome(saved) ? SessionFile.diagnose(saved.value) : "it cannot be loaded"
        // The file is left untouched: nothing is saved before a session is loaded.
        return new InputError({ message: `${file}: ${why} — ${SessionFile.advice(file)}`, details: error.message })
      }
    )
    let system = options.system ?? (Option.isSome(saved) ? Either.getOrUndefined(Schema.decodeEither(SessionJson)(saved.value))?.system : undefined)

    const say = (text: string) => io.out(`${text}\n`)
    const persist = session === undefined
      ? Effect.void
      : SessionFile.save(session.path, chat.export).pipe(Effect.catchAll((error) => io.err(`${error.message}\n`)))

    if (session !== undefined) {
      yield* say(
        Option.isSome(saved)
          ? `session ${session.name}: resumed from ${session.path} (${messages(yield* chat.transcript)})`
          : `session ${session.name}: new, saved to ${session.path} after every message`
      )
    }
    yield* say(ChatGreeting.greeting)

    const asksFor = TerminalApproval.asksFor(options.registry)

    const send = (message: string) =>
      Effect.gen(function* () {
        const screen = Screen.make(io, { askedFor: options.autoApprove ? undefined : asksFor })
        const approval = options.autoApprove ? Approval.allowAll : TerminalApproval.layer(screen)
        const reply = chat.stream(message).pipe(Stream.runForEach(screen.event), Effect.provide(approval), Effect.either)
        const outcome = yield* Effect.raceFirst(reply, Effect.as(io.interrupted, "cancelled" as const))
        if (outcome === "cancelled") yield* screen.line("(cancelled — the session keeps everything before this message)")
        else if (Either.isLeft(outcome)) yield* screen.note(`error: ${escapeLines(describeAgentError(outcome.left))}`)
        else yield* screen.endLine
        yield* persist
      })

    const save = (file: string) =>
      SessionFile.save(file, chat.export).pipe(
        Effect.matchEffect({
          onFailure: (error) => io.err(`${escapeLines(error.message)}\n`),
          onSuccess: () => say(`saved to ${file}`)
        })
      )

    const load = (file: string) =>
      Effect.gen(function* () {
        const text = yield* SessionFile.read(file)
        if (Option.isNone(text)) return yield* Effect.fail(`${file} does not exist`)
        const beyond = SessionFile.beyondLimits(text.value)
        if (beyond !== undefined) return yield* Effect.fail(`${file}: ${beyond}; the session goes on as it was`)
        const decoded = yield* Effect.mapError(Schema.decodeUnknown(SessionJson)(text.value), () => `${file}: ${SessionFile.diagnose(text.value)}; the session goes on as it was`)
        yield* Effect.mapError(chat.setHistory(decoded.transcript), (error) => `${file} holds an invalid transcript: ${error.message}`)
        if (decoded.system !== undefined) {
          system = decoded.system
          yield* chat.update({ system })
        }
        yield* persist
        yield* say(`loaded ${file} (${messages(decoded.transcript)})`)
      }).pipe(
        // The file's words (call ids, a version) are quoted in these messages: escaped, so they cannot drive the terminal.
        Effect.catchAll((error) => io.err(`${escapeLines(typeof error === "string" ? error : error.message)}\n`))
      )

    const tools = Effect.forEach(options.registry.names, (name) => {
      const tool = options.registry.tools.get(name)!
      const asks = !options.autoApprove && tool.needsApproval({})
      return say(`  ${escapeName(name)} — ${escapeLines(tool.description)}${asks ? " (asks for approval)" : ""}`)
    })

    /** Handles one `/command`; `false` means quit. */
    const command = (line: string): Effect.Effect<boolean, never, FileSystem.FileSystem | Path.Path> => {
      const name = line.slice(1).split(/\s+/, 1)[0] ?? ""
      const argument = line.slice(1 + name.length).trim()
      const needsArgument = (usage: string, then: (value: string) => Effect.Effect<void, never, FileSystem.FileSystem | Path.Path>) =>
        argument === "" ? Effect.as(io.err(`usage: ${usage}\n`), true) : Effect.as(then(argument), true)
      switch (name) {
        case "exit":
        case "quit":
          return Effect.succeed(false)
        case "help":
          return Effect.as(say(help), true)
        case "tools":
          return Effect.as(tools, true)
        case "save":
          return needsArgument("/save FILE", save)
        case "load":
          return needsArgument("/load FILE", load)
        case "system":
          if (argument === "") return Effect.as(say(system === undefined ? "(no system instruction)" : `system: ${system}`), true)
          return Effect.gen(function* () {
            system = argument
            yield* chat.update({ system })
            yield* persist
            yield* say("system instruction set")
            return true
          })
        default:
          return Effect.as(io.err(`unknown command /${name} — /help lists the commands\n`), true)
      }
    }

    yield* promptLoop(io, prompt, (line) => (line.startsWith("/") ? command(line) : Effect.as(send(line), true)))
  })
