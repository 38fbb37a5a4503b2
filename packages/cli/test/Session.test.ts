/**
 * `agentfx chat --session`: one chat per session file (the lock), and sessions that load are sessions that save.
 * Two chats in one process share a pid, so these in-process tests also cover "the holder is alive"; the spawned
 * two-process case is in Executable.test.ts.
 */
import { CliError, Repl, SessionFile, SessionLock } from "@agentfx/cli"
import { Chat, Turn } from "@agentfx/core"
import { Policy } from "@agentfx/emulator"
import { SystemError } from "@effect/platform/Error"
import * as FileSystem from "@effect/platform/FileSystem"
import * as NodeContext from "@effect/platform-node/NodeContext"
import { describe, expect, it, vi } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { agentfx, count, emulator, startInteractive, tempDir, typeAt as typeAtPrompt, viaGemini } from "./support/cli.js"

const typeAt = typeAtPrompt(Repl.prompt)

const messagesIn = (file: string): ReadonlyArray<string> =>
  Schema.decodeUnknownSync(Schema.parseJson(Chat.Session))(fs.readFileSync(file, "utf8"))
    .transcript.filter((turn) => turn.role === "user" && Turn.responses(turn).length === 0)
    .map(Turn.text)

/** A pid that ran on this host and has exited. */
const deadPid = (): number => spawnSync(process.execPath, ["-e", ""]).pid!

const lockText = (holder: SessionLock.Holder): string => `${JSON.stringify(holder)}\n`

/** A JSON object nested `depth` levels deep. */
const nested = (depth: number): Record<string, unknown> => {
  let value: Record<string, unknown> = { leaf: true }
  for (let i = 1; i < depth; i++) value = { a: value }
  return value
}

const leftovers = (dir: string): ReadonlyArray<string> => fs.readdirSync(dir).filter((name) => name.endsWith(".tmp") || name.endsWith(".stale"))

describe("agentfx chat --session: the lock", () => {
  it.scopedLive("a second chat on a session in use is refused (exit 2, pid named, nothing touched); the first goes on and releases it", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const server = yield* emulator()
      const { env: keyEnv, flags } = viaGemini(server)
      const env = { ...keyEnv, AGENTFX_SESSIONS_DIR: dir }
      const file = path.join(dir, "work.json")
      const first = yield* startInteractive("chat", [...flags, "--session", "work"], env)
      yield* typeAt(first.terminal, 1, "first message")
      yield* first.terminal.waitForOutput((out) => count(out, Repl.prompt) >= 2)
      const before = fs.readFileSync(file, "utf8")
      expect(fs.existsSync(SessionLock.fileOf(file))).toBe(true)

      const second = yield* agentfx(["chat", ...flags, "--session", "work"], { env })
      expect(second.code).toBe(2)
      expect(second.stderr).toBe(
        `agentfx: session work is in use by pid ${process.pid} on ${os.hostname()} since ${JSON.parse(fs.readFileSync(SessionLock.fileOf(file), "utf8")).startedAt}; quit that chat first, use another --session, or remove ${SessionLock.fileOf(file)} if no agentfx runs there any more\n`
      )
      expect(second.stdout).toBe("")
      expect(fs.readFileSync(file, "utf8")).toBe(before)

      yield* typeAt(first.terminal, 2, "second message")
      yield* typeAt(first.terminal, 3, "/exit")
      expect((yield* Fiber.join(first.fiber)).code).toBe(0)
      expect(messagesIn(file)).toEqual(["first message", "second message"])
      expect(fs.readdirSync(dir).sort()).toEqual(["work.json"])
    })
  )

  it.scopedLive("a stale lock (its pid no longer runs on this host) is taken over, and the chat says so", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const file = path.join(dir, "old.json")
      const pid = deadPid()
      fs.writeFileSync(SessionLock.fileOf(file), lockText({ pid, hostname: os.hostname(), startedAt: "2026-01-01T00:00:00.000Z" }))
      const terminal = yield* startInteractive("chat", ["--session", "old"], { AGENTFX_SESSIONS_DIR: dir })
      yield* typeAt(terminal.terminal, 1, "hello")
      yield* typeAt(terminal.terminal, 2, "/exit")
      const result = yield* Fiber.join(terminal.fiber)
      expect(result.code).toBe(0)
      expect(result.stderr).toContain(`session old: took over the lock left by pid ${pid} (since 2026-01-01T00:00:00.000Z), which no longer runs\n`)
      expect(messagesIn(file)).toEqual(["hello"])
      expect(fs.readdirSync(dir)).toEqual(["old.json"])
    })
  )

  it.scopedLive("a lock naming this very pid that this process never took is a previous process's (a restarted container): stale", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const file = path.join(dir, "pid1.json")
      fs.writeFileSync(SessionLock.fileOf(file), lockText({ pid: process.pid, hostname: os.hostname(), startedAt: "2026-01-01T00:00:00.000Z" }))
      const result = yield* agentfx(["chat", "--session", "pid1"], { env: { AGENTFX_SESSIONS_DIR: dir } })
      expect(result.code).toBe(0)
      expect(result.stderr).toContain(`took over the lock left by pid ${process.pid}`)
      expect(fs.existsSync(SessionLock.fileOf(file))).toBe(false)
    })
  )

  it.scopedLive("a fresh lock moved aside by a takeover that cannot be put back (a third lock took its place) is left, not removed: SessionInUse", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const file = path.join(dir, "race.json")
      const lockFile = SessionLock.fileOf(file)
      const stale = lockText({ pid: deadPid(), hostname: os.hostname(), startedAt: "2026-01-01T00:00:00.000Z" })
      const fresh = lockText({ pid: process.pid, hostname: os.hostname(), startedAt: "2026-02-02T00:00:00.000Z" })
      const third = lockText({ pid: process.pid, hostname: os.hostname(), startedAt: "2026-03-03T00:00:00.000Z" })
      fs.writeFileSync(lockFile, stale)
      // Between the read and the rename another process took the stale lock over (a fresh lock is renamed); between
      // the rename and the put-back a third created one, so the put-back fails with EEXIST.
      const racing = Layer.effect(
        FileSystem.FileSystem,
        Effect.map(FileSystem.FileSystem, (real) => ({
          ...real,
          rename: (from: string, to: string) =>
            Effect.sync(() => fs.writeFileSync(from, fresh)).pipe(
              Effect.zipRight(real.rename(from, to)),
              Effect.tap(() => Effect.sync(() => fs.writeFileSync(from, third)))
            )
        }))
      ).pipe(Layer.provideMerge(NodeContext.layer))
      const exit = yield* Effect.exit(Effect.scoped(SessionLock.acquire("race", file)).pipe(Effect.provide(racing)))
      expect(exit).toMatchObject({ _tag: "Failure", cause: { error: { _tag: "SessionInUse", startedAt: "2026-02-02T00:00:00.000Z" } } })
      expect(fs.readFileSync(lockFile, "utf8")).toBe(third)
      expect(leftovers(dir).map((name) => fs.readFileSync(path.join(dir, name), "utf8"))).toEqual([fresh])
    })
  )

  it.scopedLive("a lock from another host, or one that cannot be read, is honoured: exit 2, the lock and the session left as they were", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const env = { AGENTFX_SESSIONS_DIR: dir }
      const elsewhere = lockText({ pid: deadPid(), hostname: `not-${os.hostname()}`, startedAt: "2026-01-01T00:00:00.000Z" })
      fs.writeFileSync(SessionLock.fileOf(path.join(dir, "shared.json")), elsewhere)
      const remote = yield* agentfx(["chat", "--session", "shared"], { env })
      expect(remote.code).toBe(2)
      expect(remote.stderr).toContain(`session shared is in use by pid `)
      expect(remote.stderr).toContain(` on not-${os.hostname()} since 2026-01-01T00:00:00.000Z`)
      expect(fs.readFileSync(SessionLock.fileOf(path.join(dir, "shared.json")), "utf8")).toBe(elsewhere)
      expect(fs.existsSync(path.join(dir, "shared.json"))).toBe(false)

      fs.writeFileSync(SessionLock.fileOf(path.join(dir, "garbled.json")), "")
      const garbled = yield* agentfx(["chat", "--session", "garbled"], { env })
      expect(garbled.code).toBe(2)
      expect(garbled.stderr).toContain("session garbled is in use by another process (its lock file cannot be read)")
    })
  )

  it.scopedLive("a lock file that is a FIFO, a link to /dev/zero or larger than a lock is refused before it is read: exit 2, left where it is (issue 35, item 6)", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const env = { AGENTFX_SESSIONS_DIR: dir }
      const lockOf = (name: string) => SessionLock.fileOf(path.join(dir, `${name}.json`))
      expect(spawnSync("mkfifo", [lockOf("fifo")]).status).toBe(0)
      fs.symlinkSync("/dev/zero", lockOf("zero"))
      fs.writeFileSync(lockOf("big"), lockText({ pid: process.pid, hostname: "x".repeat(SessionLock.maxBytes), startedAt: "2026-01-01T00:00:00.000Z" }))
      const refusals: ReadonlyArray<readonly [string, string]> = [
        ["fifo", "it is a named pipe, not a regular file"],
        ["zero", "it is a device, not a regular file"],
        ["big", `it is larger than ${SessionLock.maxBytes} bytes`]
      ]
      for (const [name, why] of refusals) {
        const result = yield* agentfx(["chat", "--session", name], { env })
        expect(result).toEqual({
          code: 2,
          stdout: "",
          stderr: `agentfx: ${lockOf(name)} cannot be read: ${why}; it is not a lock agentfx wrote: remove it if no agentfx uses session ${name}\n`
        })
      }
      expect(fs.lstatSync(lockOf("fifo")).isFIFO()).toBe(true)
      expect(fs.readlinkSync(lockOf("zero"))).toBe("/dev/zero")
      expect(fs.readdirSync(dir).sort()).toEqual(["big.json.lock", "fifo.json.lock", "zero.json.lock"])
    })
  )

  it.scopedLive("a FIFO put in place of the lock while the chat runs does not hang its release: exit 0, the FIFO left (issue 35, item 6)", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const lockFile = SessionLock.fileOf(path.join(dir, "swapped.json"))
      const chat = yield* startInteractive("chat", ["--session", "swapped"], { AGENTFX_SESSIONS_DIR: dir })
      yield* chat.terminal.waitForOutput((out) => count(out, Repl.prompt) >= 1)
      fs.rmSync(lockFile)
      expect(spawnSync("mkfifo", [lockFile]).status).toBe(0)
      yield* typeAt(chat.terminal, 1, "/exit")
      expect((yield* Fiber.join(chat.fiber)).code).toBe(0)
      expect(fs.lstatSync(lockFile).isFIFO()).toBe(true)
    })
  )

  it.scopedLive("the lock is released on every way out: the end of input, Ctrl-C twice, a session that cannot be loaded", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const env = { AGENTFX_SESSIONS_DIR: dir }
      const ended = yield* agentfx(["chat", "--session", "a"], { env })
      expect(ended.code).toBe(0)

      const chat = yield* startInteractive("chat", ["--session", "b"], env)
      yield* chat.terminal.waitForOutput((out) => count(out, Repl.prompt) >= 1)
      expect(fs.existsSync(SessionLock.fileOf(path.join(dir, "b.json")))).toBe(true)
      yield* chat.terminal.interrupt
      yield* chat.terminal.waitForOutput((out) => count(out, Repl.prompt) >= 2)
      yield* chat.terminal.interrupt
      expect((yield* Fiber.join(chat.fiber)).code).toBe(0)

      fs.writeFileSync(path.join(dir, "c.json"), "{")
      const corrupt = yield* agentfx(["chat", "--session", "c"], { env })
      expect(corrupt.code).toBe(2)
      expect(fs.readdirSync(dir).filter((name) => name.endsWith(".lock"))).toEqual([])
    })
  )

  it.scopedLive("interrupting the command (as a signal would) releases the lock", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const chat = yield* startInteractive("chat", ["--session", "cut"], { AGENTFX_SESSIONS_DIR: dir })
      yield* chat.terminal.waitForOutput((out) => count(out, Repl.prompt) >= 1)
      yield* Fiber.interrupt(chat.fiber)
      expect(fs.existsSync(SessionLock.fileOf(path.join(dir, "cut.json")))).toBe(false)
    })
  )
})

/** The real file system with some of its functions replaced. */
const fileSystemWith = (replace: (real: FileSystem.FileSystem) => Partial<FileSystem.FileSystem>) =>
  Layer.effect(FileSystem.FileSystem, Effect.map(FileSystem.FileSystem, (real) => ({ ...real, ...replace(real) }))).pipe(Layer.provideMerge(NodeContext.layer))

const systemError = (method: string, reason: SystemError["reason"], description: string) =>
  new SystemError({ reason, module: "FileSystem", method, pathOrDescriptor: "x", description })

describe("SessionLock", () => {
  it("isAlive: this process runs, an exited one does not, one of another user (EPERM) does", () => {
    expect(SessionLock.isAlive(process.pid)).toBe(true)
    expect(SessionLock.isAlive(deadPid())).toBe(false)
    const kill = vi.spyOn(process, "kill").mockImplementation(() => {
      throw Object.assign(new Error("kill EPERM"), { code: "EPERM" })
    })
    try {
      expect(SessionLock.isAlive(4242)).toBe(true)
    } finally {
      kill.mockRestore()
    }
  })

  it.scopedLive("a lock held by another live process of this host is honoured: SessionInUse naming it, the lock left", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const file = path.join(dir, "live.json")
      const held = lockText({ pid: process.ppid, hostname: os.hostname(), startedAt: "2026-01-01T00:00:00.000Z" })
      fs.writeFileSync(SessionLock.fileOf(file), held)
      const exit = yield* Effect.exit(Effect.scoped(SessionLock.acquire("live", file)).pipe(Effect.provide(NodeContext.layer)))
      expect(exit).toStrictEqual(
        Exit.fail(new CliError.SessionInUse({ session: "live", lockFile: SessionLock.fileOf(file), pid: process.ppid, hostname: os.hostname(), startedAt: "2026-01-01T00:00:00.000Z" }))
      )
      expect(fs.readFileSync(SessionLock.fileOf(file), "utf8")).toBe(held)
    })
  )

  it.scopedLive("a folder that cannot be made for the lock is an OutputError naming the lock and why", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      fs.writeFileSync(path.join(dir, "plain"), "")
      const file = path.join(dir, "plain", "sub", "s.json")
      const exit = yield* Effect.exit(Effect.scoped(SessionLock.acquire("s", file)).pipe(Effect.provide(NodeContext.layer)))
      expect(exit).toStrictEqual(Exit.fail(new CliError.OutputError({ message: `${SessionLock.fileOf(file)} cannot be created: not a directory` })))
    })
  )

  it.scopedLive("a lock that cannot be created for another reason than its being there is an OutputError, not a lock in use", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const file = path.join(dir, "denied.json")
      const denied = fileSystemWith(() => ({ open: () => Effect.fail(systemError("open", "PermissionDenied", "EACCES: permission denied, open 'x'")) }))
      const exit = yield* Effect.exit(Effect.scoped(SessionLock.acquire("denied", file)).pipe(Effect.provide(denied)))
      expect(exit).toStrictEqual(Exit.fail(new CliError.OutputError({ message: `${SessionLock.fileOf(file)} cannot be created: permission denied` })))
      expect(fs.readdirSync(dir)).toStrictEqual([])
    })
  )

  it.scopedLive("a lock that cannot be written is removed, and the failure is an OutputError", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const file = path.join(dir, "full.json")
      const full = fileSystemWith((real) => ({
        open: (at, options) =>
          Effect.map(real.open(at, options), (opened) =>
            Object.create(opened, { writeAll: { value: () => Effect.fail(systemError("writeAll", "Unknown", "ENOSPC: no space left on device, write")) } }) as FileSystem.File
          )
      }))
      const exit = yield* Effect.exit(Effect.scoped(SessionLock.acquire("full", file)).pipe(Effect.provide(full)))
      expect(exit).toStrictEqual(Exit.fail(new CliError.OutputError({ message: `${SessionLock.fileOf(file)} cannot be written: no space left on device` })))
      expect(fs.readdirSync(dir)).toStrictEqual([])
    })
  )

  it.scopedLive("a lock released between a failed create and its read is tried again, and taken", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const file = path.join(dir, "gone.json")
      let opens = 0
      const released = fileSystemWith((real) => ({
        open: (at, options) => (++opens === 1 ? Effect.fail(systemError("open", "AlreadyExists", "EEXIST: file already exists, open 'x'")) : real.open(at, options))
      }))
      const lock = yield* SessionLock.acquire("gone", file).pipe(Effect.provide(released))
      expect(lock.tookOver).toStrictEqual(Option.none())
      expect(lock.file).toBe(SessionLock.fileOf(file))
      expect(fs.readdirSync(dir)).toStrictEqual(["gone.json.lock"])
    })
  )

  it.scopedLive("a lock that is released before every read is tried five times, then in use by a process not named", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const file = path.join(dir, "flicker.json")
      let opens = 0
      const flickering = fileSystemWith(() => ({
        open: () => (++opens > 20 ? Effect.die("tried without end") : Effect.fail(systemError("open", "AlreadyExists", "EEXIST: file already exists, open 'x'")))
      }))
      const exit = yield* Effect.exit(Effect.scoped(SessionLock.acquire("flicker", file)).pipe(Effect.provide(flickering)))
      expect(exit).toStrictEqual(Exit.fail(new CliError.SessionInUse({ session: "flicker", lockFile: SessionLock.fileOf(file) })))
      expect(opens).toBe(5)
    })
  )

  it.scopedLive("a stale lock moved aside that is gone before it is read and cannot be put back ends the attempt: in use, not taken", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const file = path.join(dir, "vanish.json")
      fs.writeFileSync(SessionLock.fileOf(file), lockText({ pid: deadPid(), hostname: os.hostname(), startedAt: "2026-01-01T00:00:00.000Z" }))
      const vanishing = fileSystemWith((real) => ({
        rename: (from, to) => Effect.zipRight(real.rename(from, to), Effect.sync(() => fs.rmSync(to)))
      }))
      const exit = yield* Effect.exit(Effect.scoped(SessionLock.acquire("vanish", file)).pipe(Effect.provide(vanishing)))
      expect(exit).toStrictEqual(Exit.fail(new CliError.SessionInUse({ session: "vanish", lockFile: SessionLock.fileOf(file) })))
      expect(fs.readdirSync(dir)).toStrictEqual([])
    })
  )
})

describe("agentfx chat --session: what loads saves", () => {
  it.scopedLive("a session nested deeper than the limit is refused on load (exit 2, file untouched), with the limit named", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const file = path.join(dir, "deep.json")
      const call = { _tag: "FunctionCall", id: "c1", name: "nope", args: nested(SessionFile.limits.maxDepth + 10) }
      const text = JSON.stringify({ version: 1, transcript: [{ role: "user", parts: [{ _tag: "Text", text: "hi" }] }, { role: "model", parts: [call] }] })
      fs.writeFileSync(file, text)
      const result = yield* agentfx(["chat", "--session", "deep"], { env: { AGENTFX_SESSIONS_DIR: dir } })
      expect(result.code).toBe(2)
      expect(result.stderr).toMatch(new RegExp(`nested \\d+ levels deep \\(at most ${SessionFile.limits.maxDepth}\\), so it could not be saved again`))
      expect(fs.readFileSync(file, "utf8")).toBe(text)
    })
  )

  it.scopedLive("a reply whose call cannot be saved is still printed; the error says the session was not saved, and the chat goes on", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const server = yield* emulator({
        policy: Policy.script([{ calls: [{ name: "clock", args: nested(SessionFile.limits.maxDepth + 10) }] }, { text: "Here is the answer." }])
      })
      const { env: keyEnv, flags } = viaGemini(server)
      const chat = yield* startInteractive("chat", [...flags, "--session", "deepcall"], { ...keyEnv, AGENTFX_SESSIONS_DIR: dir })
      yield* typeAt(chat.terminal, 1, "go deep")
      yield* typeAt(chat.terminal, 2, "/exit")
      const result = yield* Fiber.join(chat.fiber)
      expect(result.code).toBe(0)
      expect(result.stdout).toContain("Here is the answer.")
      expect(result.stderr).toContain(`the session was not saved to ${path.join(dir, "deepcall.json")}: it is nested`)
      expect(fs.readdirSync(dir)).toEqual([])
    })
  )

  it.scopedLive("a save that fails mid-way (the rename) leaves no temporary file and says in words that the session was not saved (issue 35, item 18)", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const file = path.join(dir, "blocked.json")
      const chat = yield* startInteractive("chat", ["--session", "blocked"], { AGENTFX_SESSIONS_DIR: dir })
      yield* chat.terminal.waitForOutput((out) => count(out, Repl.prompt) >= 1)
      // A directory where the session goes, once the chat has started: the temporary file is written, the rename over it fails.
      fs.mkdirSync(file)
      fs.writeFileSync(path.join(file, "keep"), "")
      yield* typeAt(chat.terminal, 1, "hello")
      yield* typeAt(chat.terminal, 2, "/exit")
      const result = yield* Fiber.join(chat.fiber)
      expect(result.stdout).toContain("I am the agentfx emulator")
      expect(result.stderr).toContain(`the session was not saved to ${file}:`)
      // In the system's words, not the platform's ("BadResource: FileSystem.rename (…): EISDIR: …").
      expect(result.stderr).not.toMatch(/FileSystem\.|E[A-Z]+:/)
      expect(leftovers(dir)).toEqual([])
    })
  )
})

describe("SessionFile", () => {
  it("depthOf counts nesting outside strings, escapes included", () => {
    expect(SessionFile.depthOf(`{"a":[1,{"b":"[[{{\\"]]"}]}`)).toBe(3)
    expect(SessionFile.depthOf(`${'{"a":'.repeat(10_000)}1${"}".repeat(10_000)}`)).toBe(10_000)
  })

  it("depthOf: an escaped quote does not end a string; '}' and ']' each close a level", () => {
    expect(SessionFile.depthOf(`["\\"[["]`)).toBe(1)
    expect(SessionFile.depthOf("[[],[]]")).toBe(2)
    expect(SessionFile.depthOf(`{"a":{},"b":{}}`)).toBe(2)
  })

  it("beyondLimits: text of exactly the limit's bytes or depth keeps it", () => {
    const bounds = { maxBytes: 12, maxDepth: 3 }
    expect(SessionFile.beyondLimits(JSON.stringify("abcdefghij"), bounds)).toBeUndefined()
    expect(SessionFile.beyondLimits(JSON.stringify("abcdefghijk"), bounds)).toBe("it is larger than 12 bytes")
    expect(SessionFile.beyondLimits(JSON.stringify(nested(3)), { maxBytes: 100, maxDepth: 3 })).toBeUndefined()
    expect(SessionFile.beyondLimits(JSON.stringify(nested(4)), { maxBytes: 100, maxDepth: 3 })).toBe("it is nested 4 levels deep (at most 3)")
  })

  it.effect("pathOf: a name with '..' in it is refused, though its characters are allowed", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(SessionFile.pathOf("a..b")).pipe(Effect.provide(NodeContext.layer))
      expect(error).toStrictEqual(
        new CliError.UsageError({ message: `--session "a..b": a session name holds letters, digits, '.', '_' and '-', and starts with a letter or digit` })
      )
    })
  )

  it("diagnose: blank text is empty; JSON that is no object with a transcript is no session; one without a version is invalid, not of another version", () => {
    expect(SessionFile.diagnose(" \n")).toBe("the file is empty")
    for (const text of ["1", "null", "[]", `{"messages":[]}`]) expect(SessionFile.diagnose(text)).toBe("the file is not an agentfx session (no transcript)")
    expect(SessionFile.diagnose(`{"transcript":5}`)).toBe("the session's contents are invalid")
    expect(SessionFile.diagnose(`{"transcript":5,"version":1}`)).toBe("the session's contents are invalid")
    expect(SessionFile.diagnose(`{"transcript":[],"version":2}`)).toBe("the file is a session of another version (2; this agentfx reads version 1)")
  })

  it.scopedLive("read: a file that grew past the limit since its size was checked is refused, even when a whole chunk reaches the limit exactly", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const file = path.join(dir, "grown.json")
      fs.writeFileSync(file, "x".repeat(64 * 1024 + 1))
      const small = fileSystemWith((real) => ({ stat: (at) => Effect.map(real.stat(at), (info) => ({ ...info, size: FileSystem.Size(0) })) }))
      const error = yield* Effect.flip(SessionFile.read(file, { maxBytes: 64 * 1024 }).pipe(Effect.provide(small)))
      expect(error).toStrictEqual(new CliError.InputError({ message: `${file} cannot be read: it is larger than 65536 bytes` }))
    })
  )

  it.scopedLive("read: what was opened is checked again: a folder put where a file was checked is refused as a folder", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const file = path.join(dir, "swapped.json")
      fs.mkdirSync(file)
      const asFile = fileSystemWith((real) => ({ stat: (at) => Effect.map(real.stat(at), (info) => ({ ...info, type: "File" as const, size: FileSystem.Size(0) })) }))
      const error = yield* Effect.flip(SessionFile.read(file).pipe(Effect.provide(asFile)))
      expect(error).toStrictEqual(new CliError.InputError({ message: `${file} cannot be read: it is a directory, not a regular file` }))
    })
  )

  it.scopedLive("the size limit counts bytes on save as on load: multi-byte text within the limit in characters but not in bytes is not saved", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const bounds = { maxBytes: 12, maxDepth: 512 }
      // 7 characters, 12 bytes: at the limit.
      const fits = JSON.stringify("ééééé")
      expect(SessionFile.beyondLimits(fits, bounds)).toBeUndefined()
      // 8 characters, 14 bytes.
      const over = JSON.stringify("éééééé")
      expect(SessionFile.beyondLimits(over, bounds)).toBe("it is larger than 12 bytes")
      const file = path.join(dir, "s.json")
      yield* SessionFile.save(file, Effect.succeed(fits), bounds).pipe(Effect.provide(NodeContext.layer))
      expect(Option.isSome(yield* SessionFile.read(file, bounds).pipe(Effect.provide(NodeContext.layer)))).toBe(true)
      const refused = yield* Effect.flip(SessionFile.save(file, Effect.succeed(over), bounds).pipe(Effect.provide(NodeContext.layer)))
      expect(refused.message).toBe(`the session was not saved to ${file}: it is larger than 12 bytes`)
      fs.writeFileSync(file, over)
      const unreadable = yield* Effect.flip(SessionFile.read(file, bounds).pipe(Effect.provide(NodeContext.layer)))
      expect(unreadable.message).toBe(`${file} cannot be read: it is larger than 12 bytes`)
      expect(SessionFile.beyondLimits("x".repeat(SessionFile.limits.maxBytes + 1))).toBe("it is larger than 64 MiB")
    })
  )

  /** The real file system, with every fsync and rename recorded in order. */
  const recording = (log: Array<string>) =>
    Layer.effect(
      FileSystem.FileSystem,
      Effect.map(FileSystem.FileSystem, (real): FileSystem.FileSystem => ({
        ...real,
        open: (file, options) =>
          Effect.map(real.open(file, options), (handle) =>
            Object.create(handle, { sync: { value: Effect.zipRight(handle.sync, Effect.sync(() => log.push(`sync ${path.basename(file)}`))) } }) as FileSystem.File
          ),
        rename: (from, to) => Effect.zipRight(real.rename(from, to), Effect.sync(() => log.push(`rename ${path.basename(from)}`)))
      }))
    ).pipe(Layer.provide(NodeContext.layer))

  it.scopedLive("write flushes the temporary file before the rename and the directory after it", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const file = path.join(dir, "sessions", "s.json")
      const log: Array<string> = []
      yield* SessionFile.write(file, "{}").pipe(Effect.provide(Layer.merge(NodeContext.layer, recording(log))))
      expect(log).toEqual([`sync s.json.${process.pid}.tmp`, `rename s.json.${process.pid}.tmp`, "sync sessions"])
      expect(fs.readFileSync(file, "utf8")).toBe("{}")
      expect(fs.readdirSync(path.dirname(file))).toEqual(["s.json"])
    })
  )

  it.scopedLive("a write interrupted mid-way (Ctrl-C while saving) removes its temporary file and leaves the session as it was", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const file = path.join(dir, "s.json")
      fs.writeFileSync(file, "{}")
      const syncing = yield* Deferred.make<void>()
      // The flush never ends: the write is caught between writing the temporary file and renaming it.
      const stuck = Layer.effect(
        FileSystem.FileSystem,
        Effect.map(FileSystem.FileSystem, (real): FileSystem.FileSystem => ({
          ...real,
          open: (target, options) =>
            Effect.map(real.open(target, options), (handle) =>
              Object.create(handle, { sync: { value: Effect.zipRight(Deferred.succeed(syncing, undefined), Effect.never) } }) as FileSystem.File
            )
        }))
      ).pipe(Layer.provide(NodeContext.layer))
      const fiber = yield* Effect.fork(SessionFile.write(file, '{"new":true}').pipe(Effect.provide(Layer.merge(NodeContext.layer, stuck))))
      yield* Deferred.await(syncing)
      expect(fs.readdirSync(dir).sort()).toEqual(["s.json", `s.json.${process.pid}.tmp`])
      yield* Fiber.interrupt(fiber)
      expect(fs.readdirSync(dir)).toEqual(["s.json"])
      expect(fs.readFileSync(file, "utf8")).toBe("{}")
    })
  )

  it.scopedLive("save fails typed (OutputError, \"not saved\") when the chat cannot be encoded; nothing is written", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const file = path.join(dir, "x.json")
      const error = yield* Effect.flip(SessionFile.save(file, Effect.die(new RangeError("Maximum call stack size exceeded"))))
      expect(error._tag).toBe("OutputError")
      expect(error.message).toBe(`the session was not saved to ${file}: it cannot be encoded (Maximum call stack size exceeded)`)
      expect(fs.readdirSync(dir)).toEqual([])
    }).pipe(Effect.provide(NodeContext.layer))
  )

  it.scopedLive("a session that is not a regular file is refused before it is opened", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const fifo = path.join(dir, "pipe.json")
      if (spawnSync("mkfifo", [fifo]).status !== 0) fs.mkdirSync(fifo)
      const error = yield* Effect.flip(SessionFile.load(fifo))
      expect(error.message).toBe(`${fifo} cannot be read: it is a named pipe, not a regular file`)
    }).pipe(Effect.provide(NodeContext.layer))
  )

  it.scopedLive("read stops after the limit whatever the size said (a file that grew since): the text is never read whole", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const file = path.join(dir, "grown.json")
      fs.writeFileSync(file, "x".repeat(1000))
      let read = 0
      // The file system says the file is empty, as it was when looked at; every byte handed out is counted.
      const shrunk = Layer.effect(
        FileSystem.FileSystem,
        Effect.map(FileSystem.FileSystem, (real): FileSystem.FileSystem => ({
          ...real,
          stat: (target) => Effect.map(real.stat(target), (info) => ({ ...info, size: FileSystem.Size(0) })),
          open: (target, options) =>
            Effect.map(real.open(target, options), (handle) =>
              Object.create(handle, {
                stat: { value: Effect.map(handle.stat, (info) => ({ ...info, size: FileSystem.Size(0) })) },
                readAlloc: { value: (size: FileSystem.SizeInput) => Effect.tap(handle.readAlloc(size), (chunk) => Effect.sync(() => (read += Option.match(chunk, { onNone: () => 0, onSome: (bytes) => bytes.length })))) }
              }) as FileSystem.File
            )
        }))
      ).pipe(Layer.provide(NodeContext.layer))
      const error = yield* Effect.flip(SessionFile.read(file, { maxBytes: 100 }).pipe(Effect.provide(shrunk)))
      expect(error.message).toBe(`${file} cannot be read: it is larger than 100 bytes`)
      expect(read).toBe(101)
    })
  )

  it.scopedLive("a session file that cannot be looked at says why in words, not in the platform's (issue 35, item 18)", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      fs.writeFileSync(path.join(dir, "plain"), "")
      // A path through a file: ENOTDIR.
      const file = path.join(dir, "plain", "s.json")
      const error = yield* Effect.flip(SessionFile.read(file))
      expect(error.message).toBe(`${file} cannot be read: not a directory`)
    }).pipe(Effect.provide(NodeContext.layer))
  )
})
