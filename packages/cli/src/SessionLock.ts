/**
 * One `agentfx chat` per session file. Two chats saving the same session would each write their own transcript
 * over the other's, silently losing messages; so a chat holds an advisory lock file next to the session
 * (`NAME.json.lock`, holding its pid, host name and start time) for as long as it runs, and a second chat is
 * refused with `SessionInUse` before it reads or writes anything.
 *
 * The lock is created with O_EXCL (flag `wx`), so of two chats starting together exactly one gets it. It is
 * removed when the chat's scope closes — a normal end, an error, Ctrl-C. A process killed outright leaves it
 * behind: a lock whose pid no longer runs on this host is stale and taken over (and the chat says so). A lock
 * from another host cannot be checked, so it is honoured; the error says how to remove it by hand.
 *
 * @since 0.1.0
 */
import type { PlatformError } from "@effect/platform/Error"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as os from "node:os"
import { InputError, OutputError, SessionInUse } from "./CliError.js"
import * as FileProblem from "./internal/fileProblem.js"
import * as SessionFile from "./SessionFile.js"

/** Who holds a lock, as written in the lock file. */
export const Holder = Schema.Struct({
  pid: Schema.Int.pipe(Schema.positive()),
  hostname: Schema.String,
  startedAt: Schema.String
})
export interface Holder extends Schema.Schema.Type<typeof Holder> {}

const HolderJson = Schema.parseJson(Holder)

/** A lock this process holds. */
export interface Lock {
  readonly file: string
  /** The holder of a stale lock this process took over, when it did. */
  readonly tookOver: Option.Option<Holder>
}

/** The lock file of a session file. */
export const fileOf = (sessionFile: string): string => `${sessionFile}.lock`

/** The most a lock file may hold: a holder is a pid, a host name and a time, well under this. */
export const maxBytes = 4096

/**
 * The text of a lock file, `None` when there is none; read like every file the CLI reads (`SessionFile.read`):
 * a FIFO or a device put at its name is refused before it is opened, and at most `maxBytes` + 1 bytes are read.
 */
const readLock = (lockFile: string) => SessionFile.read(lockFile, { maxBytes })

/** Whether `pid` runs on this host. EPERM means it runs under another user: alive all the same. */
export const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

// Locks taken by this process. A lock naming our own pid that is not here was left by an earlier process that
// had the same pid (a container's pid 1 after a restart): stale, not ours.
const heldHere = new Set<string>()

const self = (): Holder => ({ pid: process.pid, hostname: os.hostname(), startedAt: new Date().toISOString() })

const isStale = (holder: Holder, lockFile: string): boolean =>
  holder.hostname === os.hostname() && (holder.pid === process.pid ? !heldHere.has(lockFile) : !isAlive(holder.pid))

type Attempt =
  | { readonly _tag: "Taken" }
  | { readonly _tag: "Held"; readonly holder: Option.Option<Holder>; readonly text: string }
  | { readonly _tag: "Gone" }

/**
 * Takes the lock of `sessionFile` for the current scope, or fails with `SessionInUse` naming who holds it.
 * `session` is the name the user gave (for the message). Something at the lock's name that no agentfx wrote — a
 * FIFO, a device, a file larger than `maxBytes` — is an `InputError` (exit 2), refused without reading it.
 */
export const acquire = (
  session: string,
  sessionFile: string
): Effect.Effect<Lock, SessionInUse | InputError | OutputError, FileSystem.FileSystem | Path.Path | Scope.Scope> =>
  Effect.acquireRelease(take(session, sessionFile), (lock) => release(lock.file, lock.text))

const take = (
  session: string,
  sessionFile: string
): Effect.Effect<Lock & { readonly text: string }, SessionInUse | InputError | OutputError, FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const lockFile = fileOf(sessionFile)
    const mine = `${JSON.stringify(self())}\n`
    const failed = (what: string) => (error: PlatformError) => new OutputError({ message: `${lockFile} cannot be ${what}: ${FileProblem.describe(error)}` })
    yield* Effect.mapError(fs.makeDirectory(path.dirname(lockFile), { recursive: true }), failed("created"))

    const create: Effect.Effect<boolean, OutputError> = Effect.scoped(
      Effect.gen(function* () {
        const opened = yield* Effect.either(fs.open(lockFile, { flag: "wx" }))
        if (Either.isLeft(opened)) {
          if (opened.left._tag === "SystemError" && opened.left.reason === "AlreadyExists") return false
          return yield* Effect.fail(failed("created")(opened.left))
        }
        // A lock that exists but says nothing would be refused by everyone: never leave one behind half-written.
        yield* Effect.catchAll(Effect.zipRight(opened.right.writeAll(new TextEncoder().encode(mine)), opened.right.sync), (error) =>
          Effect.zipRight(Effect.ignore(fs.remove(lockFile)), Effect.fail(failed("written")(error)))
        )
        return true
      })
    )

    const notALock = (error: InputError) =>
      new InputError({ message: `${error.message}; it is not a lock agentfx wrote: remove it if no agentfx uses session ${session}` })
    const attempt: Effect.Effect<Attempt, OutputError | InputError, FileSystem.FileSystem> = Effect.gen(function* () {
      if (yield* create) return { _tag: "Taken" }
      const text = yield* Effect.mapError(readLock(lockFile), notALock)
      // Released between our create and our read: try again.
      if (Option.isNone(text)) return { _tag: "Gone" }
      return { _tag: "Held", holder: Either.getRight(Schema.decodeEither(HolderJson)(text.value)), text: text.value }
    })

    /**
     * Moves a stale lock out of the way. It is renamed, not removed: of two processes recovering it at once, only
     * one can rename it; the other finds it gone, or renames the fresh lock the first just took — which it sees
     * by its contents and puts back. One that cannot be put back (a third process created a lock meanwhile, or
     * the file system has no hard links) is left where it was moved: never removed while someone may hold it.
     * Returns the text of such a lock, which ends the attempt.
     */
    const takeOver = (staleText: string): Effect.Effect<string | undefined, never, FileSystem.FileSystem> =>
      Effect.gen(function* () {
        const aside = `${lockFile}.${process.pid}.stale`
        if (Either.isLeft(yield* Effect.either(fs.rename(lockFile, aside)))) return undefined
        // What is read here may have replaced the stale lock since it was read: read as warily.
        const moved = Option.flatten(Either.getRight(yield* Effect.either(readLock(aside))))
        const stale = Option.contains(moved, staleText)
        if (!stale && Either.isLeft(yield* Effect.either(fs.link(aside, lockFile)))) return Option.getOrElse(moved, () => "")
        yield* Effect.ignore(fs.remove(aside))
        return undefined
      })

    let tookOver = Option.none<Holder>()
    let last: Option.Option<Holder> = Option.none()
    // Bounded: each round either takes the lock, finds it held, or clears one stale lock.
    for (let round = 0; round < 5; round++) {
      const result = yield* attempt
      if (result._tag === "Taken") {
        heldHere.add(lockFile)
        return { file: lockFile, tookOver, text: mine }
      }
      if (result._tag === "Gone") continue
      last = result.holder
      if (Option.isNone(result.holder) || !isStale(result.holder.value, lockFile)) break
      const stuck = yield* takeOver(result.text)
      if (stuck !== undefined) {
        last = Either.getRight(Schema.decodeEither(HolderJson)(stuck))
        break
      }
      tookOver = result.holder
    }
    return yield* Effect.fail(
      new SessionInUse({
        session,
        lockFile,
        ...Option.match(last, { onNone: () => ({}), onSome: (holder) => ({ pid: holder.pid, hostname: holder.hostname, startedAt: holder.startedAt }) })
      })
    )
  })

/** Removes the lock if it still holds what we wrote (after a takeover by someone else it is not ours to remove). */
const release = (lockFile: string, mine: string): Effect.Effect<void, never, FileSystem.FileSystem> =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    heldHere.delete(lockFile)
    const text = Option.flatten(Either.getRight(yield* Effect.either(readLock(lockFile))))
    if (Option.contains(text, mine)) yield* Effect.ignore(fs.remove(lockFile))
  })
