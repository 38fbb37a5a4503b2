import { Io, LiveRepl } from "@agentfx/cli"
import type { LiveAgent } from "@agentfx/core"
import { FunctionCall, ToolError } from "@agentfx/core"
import { Fault, Policy } from "@agentfx/emulator"
import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Fiber from "effect/Fiber"
import * as path from "node:path"
import { agentfx, emulator, startInteractive, tempDir, typeAt as typeAtPrompt, viaGemini, writeFiles } from "./support/cli.js"
import { withoutCallTimes } from "./support/callTimes.js"

/** How a call ended, as a live event's record says. */
type CallOutcome = Extract<LiveAgent.LiveAgentEvent, { readonly _tag: "CallFinished" }>["record"]["outcome"]

/** Starts `agentfx live` on a fresh terminal; returns the terminal and the running command. */
const startLive = (args: ReadonlyArray<string>, env: Record<string, string>) => startInteractive("live", args, env)

/** Types `line` once the live chat shows its `n`-th prompt. */
const typeAt = typeAtPrompt(LiveRepl.prompt)

describe("agentfx live", () => {
  it.scopedLive("offline: the emulator's Live endpoint answers, calls are shown as they start and are answered, /tools and /exit", () =>
    Effect.gen(function* () {
      const { terminal, fiber } = yield* startLive([], {})
      yield* typeAt(terminal, 1, "what is 12 * 12")
      yield* typeAt(terminal, 2, "/tools")
      yield* typeAt(terminal, 3, "/exit")
      const result = yield* Fiber.join(fiber)
      expect(result.code).toBe(0)
      expect(result.stderr).toContain("provider: emulator — the offline rule model on the Live WebSocket")
      expect(result.stdout).toContain('you> what is 12 * 12\n→ calculator({"expression":"12 * 12"})\n← calculator: {"expression":"12 * 12","result":144}')
      expect(result.stdout).toMatch(/ {2}clock — /)
      // The answer comes before the next prompt.
      expect(result.stdout.indexOf("144", result.stdout.indexOf("←"))).toBeLessThan(result.stdout.lastIndexOf("you> /tools"))
    }))

  it.scopedLive("offline: the greeting, /help, an unknown command, /tools, a turn and /quit, exactly", () =>
    Effect.gen(function* () {
      const { terminal, fiber } = yield* startLive([], {})
      yield* typeAt(terminal, 1, "/help")
      yield* typeAt(terminal, 2, "/nope at all")
      yield* typeAt(terminal, 3, "/tools")
      yield* typeAt(terminal, 4, "what is 2 + 2")
      yield* typeAt(terminal, 5, "/quit")
      const result = yield* Fiber.join(fiber)
      expect(result.code).toBe(0)
      // How long the call took is the one thing that varies.
      expect(withoutCallTimes(result.stdout, "(TIME)")).toBe(
        [
          "agentfx live — /help for commands; Ctrl-C stops a turn; /exit or Ctrl-D quits.",
          "you> /help",
          "Type a message and press Enter. Calls show as → (started), ← (answered) and ✗ (cancelled by the server, or lost).",
          "  /tools         list the tools the model can call",
          "  /help          this help",
          "  /exit          quit (so do Ctrl-D and Ctrl-C twice at an empty prompt)",
          "Ctrl-C during a turn stops it and its calls; the session goes on.",
          "you> /nope at all",
          "you> /tools",
          "  clock — Current date and time in an IANA time zone (default UTC).",
          "  calculator — Evaluates an arithmetic expression exactly as written: + - * / ^ (power), parentheses, decimals and unary minus.",
          "  read_file — Reads a UTF-8 text file (at most 1048576 bytes) under the root directory; the path is relative to the root.",
          "  list_dir — Lists a directory under the root directory (names, types and file sizes); the path is relative to the root.",
          "you> what is 2 + 2",
          '→ calculator({"expression":"2 + 2"})',
          '← calculator: {"expression":"2 + 2","result":4} (TIME)',
          "2 + 2 = 4.",
          "you> /quit",
          ""
        ].join("\n")
      )
      expect(result.stderr.split("\n").slice(1)).toEqual(["connecting to the in-process emulator's Live endpoint…", "unknown command /nope — /help lists the commands", ""])
    }))

  it.scopedLive("the setup carries a scenario's instructions, or --system over them, and declares the scenario's functions", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      writeFiles(dir, {
        "sums.md": "---\nname: sums\ndescription: d\navailable_functions:\n  - name: calculator\n    description: Adds up\n    parameters: { type: object, properties: { expression: { type: string } }, required: [expression] }\n---\nAdd things up.\n"
      })
      const setupOf = (args: ReadonlyArray<string>) =>
        Effect.gen(function* () {
          const server = yield* emulator({ policy: Policy.script([{ text: "Hi." }]) })
          const { env, flags } = viaGemini(server)
          const result = yield* agentfx(["live", ...flags, "--scenario", path.join(dir, "sums.md"), ...args], { env })
          expect(result.code).toBe(0)
          return JSON.stringify((yield* server.live)[0]!.setup)
        })
      const own = yield* setupOf([])
      expect(own).toContain("Add things up.")
      expect(own).toContain('"Adds up"')
      expect(own).not.toContain("read_file")
      const system = yield* setupOf(["--system", "Be brief."])
      expect(system).toContain("Be brief.")
      expect(system).not.toContain("Add things up.")
    }))

  it.scopedLive("--yes: a tool that asks first runs without asking", () =>
    Effect.gen(function* () {
      const server = yield* emulator({ policy: Policy.script([]) })
      const url = `http://127.0.0.1:${server.port}/`
      yield* server.setPolicy(Policy.script([{ calls: [{ name: "fetch_url", args: { url } }] }, { text: "Fetched." }]))
      const { env, flags } = viaGemini(server)
      const { terminal, fiber } = yield* startLive([...flags, "--yes", "--allow-host", `127.0.0.1:${server.port}`], env)
      yield* typeAt(terminal, 1, "fetch it")
      // Asking would wait for an answer: the end of input gives it, so the test ends either way.
      yield* terminal.waitForOutput((out) => out.includes("Fetched.") || out.includes("allow?"))
      yield* terminal.end
      const result = yield* Fiber.join(fiber)
      expect(result.code).toBe(0)
      expect(result.stdout).toContain(`you> fetch it\n→ fetch_url({"url":"${url}"})\n← fetch_url`)
      expect(result.stdout).toContain("Fetched.")
      expect(result.stdout).not.toContain("allow?")
    }))

  it.scopedLive("--first-byte-timeout stops a turn the model never answers; the session goes on", () =>
    Effect.gen(function* () {
      const server = yield* emulator({ policy: Policy.script([{ text: "Back again." }]) })
      yield* server.inject(Fault.stall)
      const { env, flags } = viaGemini(server)
      const { terminal, fiber } = yield* startLive([...flags, "--first-byte-timeout", "300ms"], env)
      yield* typeAt(terminal, 1, "hello?")
      yield* typeAt(terminal, 2, "still there?")
      yield* typeAt(terminal, 3, "/exit")
      const result = yield* Fiber.join(fiber)
      expect(result.code).toBe(0)
      expect(result.stderr).toContain("(ModelTimeout: the model sent nothing within 300ms (firstByteTimeout); the turn was stopped — say it again if you want an answer)")
      expect(result.stdout).toContain("you> still there?\nBack again.")
    }))

  it.scopedLive("a scenario's program starts only once the user says yes on the terminal: the input ended, so nothing starts (exit 2)", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      writeFiles(dir, { "marking.md": "---\nname: marking\ndescription: d\navailable_functions: []\nmcp:\n  - name: marker\n    command: node -e 'process.exit(3)'\n---\nHi.\n" })
      const result = yield* agentfx(["live", "--scenario", path.join(dir, "marking.md")])
      expect(result.code).toBe(2)
      expect(result.stdout).toBe("Start it? [y/N] \n")
      expect(result.stderr).toContain("): nobody could answer (the input ended); pass --allow-scenario-commands")
    }))

  it.scopedLive("--turn-timeout stops a turn the model never finishes; the session goes on", () =>
    Effect.gen(function* () {
      const server = yield* emulator({ policy: Policy.script([{ text: "Back again." }]) })
      yield* server.inject(Fault.stall)
      const { env, flags } = viaGemini(server)
      const { terminal, fiber } = yield* startLive([...flags, "--turn-timeout", "300ms"], env)
      yield* typeAt(terminal, 1, "hello?")
      yield* typeAt(terminal, 2, "/exit")
      const result = yield* Fiber.join(fiber)
      expect(result.code).toBe(0)
      expect(result.stderr).toContain("(ModelTimeout: the model did not finish its answer within 300ms (turnTimeout); the turn was stopped — say it again if you want an answer)")
    }))

  it.scopedLive("a call the server cancels is shown as cancelled and never answered; a reconnect after goAway is shown", () =>
    Effect.gen(function* () {
      const server = yield* emulator({
        policy: Policy.script([
          // fetch_url waits at its approval prompt, so the cancellation always finds it running.
          Policy.withFaults({ calls: [{ name: "fetch_url", args: { url: "https://example.com/" } }] }, Fault.cancelCalls("20 millis")),
          Policy.withFaults({ text: "Still here." }, Fault.goAway("1 second")),
          { text: "After the move." }
        ])
      })
      const { env, flags } = viaGemini(server)
      const { terminal, fiber } = yield* startLive([...flags, "--allow-host", "example.com"], env)
      yield* typeAt(terminal, 1, "fetch example.com")
      yield* typeAt(terminal, 2, "are you there?")
      yield* typeAt(terminal, 3, "and now?")
      yield* typeAt(terminal, 4, "/exit")
      const result = yield* Fiber.join(fiber)
      expect(result.code).toBe(0)
      expect(result.stderr).toContain("provider: gemini live, model gemini-live-2.5-flash-preview at")
      const records = yield* server.live
      expect(records[0]!.cancelled).toEqual(["call_0_0"])
      expect(records[0]!.responses).toEqual([])
      expect(result.stdout).toContain("✗ fetch_url cancelled by the server")
      expect(result.stdout).toContain("Still here.")
      expect(result.stderr).toContain("(the server will close this connection in 1s; the session moves to a new one)")
      expect(result.stderr).toContain("(reconnected: the session resumed on connection 2)")
      expect(result.stdout).toContain("After the move.")
      expect(records).toHaveLength(2)
    }))

  it.scopedLive("Ctrl-C during a turn stops it and its calls (answered with an error, so the model does not wait); the session goes on", () =>
    Effect.gen(function* () {
      const server = yield* emulator({
        policy: Policy.script([{ calls: [{ name: "fetch_url", args: { url: "https://example.com/" } }] }, { text: "Stopped, as you asked." }, { text: "Back." }])
      })
      const { env, flags } = viaGemini(server)
      const { terminal, fiber } = yield* startLive([...flags, "--allow-host", "example.com"], env)
      yield* typeAt(terminal, 1, "fetch example.com")
      // The approval prompt waits for an answer: Ctrl-C there stops the turn.
      yield* terminal.waitForOutput((out) => out.includes("allow? [y/N]"))
      yield* terminal.interrupt
      yield* typeAt(terminal, 2, "hello")
      yield* typeAt(terminal, 3, "/exit")
      const result = yield* Fiber.join(fiber)
      expect(result.code).toBe(0)
      expect(result.stdout).toContain("(stopped — the turn's calls were cancelled; the session goes on)")
      expect(result.stdout).toContain("Back.")
      const [record] = yield* server.live
      expect(record!.responses).toHaveLength(1)
      expect(record!.responses[0]!.response).toMatchObject({ error: {} })
      expect(record!.violations).toEqual([])
    }))

  it.scopedLive("a key the server refuses is one line naming the variable and the way to run offline, exit 1", () =>
    Effect.gen(function* () {
      const server = yield* emulator()
      const result = yield* agentfx(["live", "--provider", "gemini", "--base-url", server.geminiBaseUrl], { env: { GEMINI_API_KEY: "wrong-key-123" } })
      expect(result.code).toBe(1)
      expect(result.stderr).toContain("gemini refused the API key")
      expect(result.stderr).toContain("--provider emulator")
      expect(result.stderr).not.toContain("wrong-key-123")
    }))

  it.scopedLive("a key read from GOOGLE_API_KEY that the server refuses names GOOGLE_API_KEY, the variable really read", () =>
    Effect.gen(function* () {
      const server = yield* emulator()
      const result = yield* agentfx(["live", "--provider", "gemini", "--base-url", server.geminiBaseUrl], { env: { GEMINI_API_KEY: " ", GOOGLE_API_KEY: "wrong-key-456" } })
      expect(result.code).toBe(1)
      expect(result.stderr).toContain("agentfx: gemini refused the API key (1007): check GOOGLE_API_KEY, or run offline with --provider emulator\n")
    }))

  it.effect("an empty key is one line naming the empty variable (not a garbled config error), exit 2", () =>
    Effect.gen(function* () {
      for (const variable of ["GEMINI_API_KEY", "GOOGLE_API_KEY"]) {
        const result = yield* agentfx(["live", "--provider", "gemini"], { env: { [variable]: "" } })
        expect(result.code).toBe(2)
        expect(result.stderr).toBe(`agentfx: ${variable} is set but empty: put your gemini API key in it, or choose another --provider (emulator needs none)\n`)
      }
    }))

  it.scopedLive("a setup the server refuses is a failure of the run (exit 1, not 2), with the server's reason", () =>
    Effect.gen(function* () {
      const server = yield* emulator()
      yield* server.inject(Fault.refuseSetup(), { protocol: "gemini-live" })
      const { env, flags } = viaGemini(server)
      const result = yield* agentfx(["live", ...flags], { env })
      expect(result.code).toBe(1)
      expect(result.stderr).toMatch(/agentfx: the live session could not start — InvalidRequest: the server closed the connection during setup \(1008: models\/.* is not found/)
    }))

  it.scopedLive("connecting says where on stderr (a status line on a terminal); a setup that never completes fails after --connect-timeout, naming it, exit 1", () =>
    Effect.gen(function* () {
      const server = yield* emulator()
      yield* server.inject(Fault.slowSetup(Duration.infinity), { protocol: "gemini-live", times: 100 })
      const { env, flags } = viaGemini(server)
      const piped = yield* agentfx(["live", ...flags, "--connect-timeout", "300ms"], { env })
      expect(piped.code).toBe(1)
      expect(piped.stderr).toContain(`connecting to gemini-live-2.5-flash-preview at 127.0.0.1:${server.port}…\n`)
      expect(piped.stderr).toContain("agentfx: the live session could not start — ModelTimeout: the live connection was not set up within 300ms (connectTimeout)\n")
      expect(piped.stderr).not.toContain("turnTimeout")
      const terminal = yield* Io.memory({ interactive: true })
      yield* terminal.end
      const interactive = yield* agentfx(["live", ...flags, "--connect-timeout", "300ms"], { env, terminal })
      expect(interactive.code).toBe(1)
      expect(yield* terminal.statuses).toEqual([`connecting to gemini-live-2.5-flash-preview at 127.0.0.1:${server.port}… (Ctrl-C to stop)`, ""])
    }))

  it.scopedLive("a server that stays away: each failed attempt is said, and --connect-timeout ends the wait with the last failure, exit 1", () =>
    Effect.gen(function* () {
      const gone = yield* Effect.scoped(emulator())
      // Refused at once, then again after the reconnect schedule's first wait (0.5 s): the bound ends it after that.
      const result = yield* agentfx(["live", ...viaGemini(gone).flags, "--connect-timeout", "1s"], { env: viaGemini(gone).env })
      expect(result.code).toBe(1)
      expect(result.stderr).toContain(`connecting to gemini-live-2.5-flash-preview at 127.0.0.1:${gone.port}… attempt 1 failed (Unavailable: the Live connection failed during setup: connect ECONNREFUSED`)
      expect(result.stderr).toMatch(
        /agentfx: the live session could not start — ModelTimeout: the live connection was not set up within 1s \(connectTimeout\); \d+ attempts? failed, the last with Unavailable: the Live connection failed during setup: connect ECONNREFUSED/
      )
    }))

  it.scopedLive("a server refused once before --connect-timeout ends the wait: one attempt failed, said in the singular, exit 1", () =>
    Effect.gen(function* () {
      const gone = yield* Effect.scoped(emulator())
      // Refused at once; the next attempt would come after the reconnect schedule's first wait (0.5 s), past the bound.
      const result = yield* agentfx(["live", ...viaGemini(gone).flags, "--connect-timeout", "300ms"], { env: viaGemini(gone).env })
      expect(result.code).toBe(1)
      expect(result.stderr).toMatch(
        /agentfx: the live session could not start — ModelTimeout: the live connection was not set up within 300ms \(connectTimeout\); 1 attempt failed, the last with Unavailable: the Live connection failed during setup: connect ECONNREFUSED \S+\n$/
      )
    }))

  it.scopedLive("Ctrl-C while connecting stops the command at once (exit 130) and closes the half-open socket", () =>
    Effect.gen(function* () {
      const server = yield* emulator()
      yield* server.inject(Fault.slowSetup(Duration.infinity), { protocol: "gemini-live" })
      const { env, flags } = viaGemini(server)
      const { terminal, fiber } = yield* startLive(flags, env)
      yield* server.awaitLive(1)
      yield* terminal.interrupt
      const result = yield* Fiber.join(fiber)
      expect(result.code).toBe(130)
      expect(result.stderr).toContain("agentfx: interrupted")
      expect(yield* server.awaitLiveClosed(0)).toMatchObject({ by: "client" })
    }))

  it.effect("bad arguments are refused before anything starts: an unknown provider for live, a misspelled option", () =>
    Effect.gen(function* () {
      const provider = yield* agentfx(["live", "--provider", "glm"])
      expect(provider.code).toBe(2)
      expect(provider.stderr).toContain("--provider")
      const typo = yield* agentfx(["live", "--sytem", "x"])
      expect(typo.code).toBe(2)
      expect(typo.stderr).toContain("--system")
    }))

  it("each call's end is one line: its result or error (escaped) and how long it took; a call asked again is not run twice", () => {
    const record = (outcome: CallOutcome) => ({ id: "c1", name: "calc\u001b", args: {}, outcome, duration: Duration.millis(1234.4), turn: 1, connection: 1 })
    const response = { id: "c1", name: "calc", response: {} }
    const finished = (outcome: CallOutcome) => LiveRepl.lineOf({ _tag: "CallFinished", record: record(outcome) })
    expect(finished({ _tag: "Answered", result: Either.right({ value: 3 }), response })).toBe('← calc\\u001b: {"value":3} (1s 234ms)')
    expect(finished({ _tag: "Answered", result: Either.left(new ToolError.ExecutionFailed({ name: "calc", cause: "bad\u001b[2J", defect: false })), response })).toBe(
      '← calc\\u001b failed: "calc" failed: bad\\u001b[2J (1s 234ms)'
    )
    expect(finished({ _tag: "Repeated", response })).toBe("← calc\\u001b: asked again after a reconnect; not run twice")
    // A call under half a millisecond: 0ms, not Duration.format's bare "0" (chat's lines use the same text).
    const quick = { ...record({ _tag: "Answered", result: Either.right(1), response }), duration: Duration.millis(0.4) }
    expect(LiveRepl.lineOf({ _tag: "CallFinished", record: quick })).toBe("← calc\\u001b: 1 (0ms)")
    expect(finished({ _tag: "Cancelled" })).toBeUndefined()
    expect(LiveRepl.lineOf({ _tag: "CallCancelled", record: record({ _tag: "Stopped", response }) })).toBe("✗ calc\\u001b stopped")
    expect(LiveRepl.lineOf({ _tag: "CallCancelled", record: record({ _tag: "Cancelled" }) })).toBe("✗ calc\\u001b cancelled by the server")
    expect(LiveRepl.lineOf({ _tag: "CallLost", record: record({ _tag: "Lost", reason: "closed\u001b" }) })).toBe("✗ calc\\u001b lost with its connection: closed\\u001b")
    expect(LiveRepl.lineOf({ _tag: "CallLost", record: record({ _tag: "Cancelled" }) })).toBe("✗ calc\\u001b lost with its connection")
    expect(LiveRepl.lineOf({ _tag: "CallProgress", turn: 1, call: FunctionCall.make({ id: "c1", name: "scan", args: {} }), response: { done: 2 }, sent: false })).toBe('… scan: {"done":2}')
  })

  it("connections, reconnects and interruptions are lines of their own; the events a person need not see show nothing", () => {
    expect(LiveRepl.lineOf({ _tag: "Reconnecting", attempt: 2, reason: "gone\u001b", code: 1011, fresh: true })).toBe(
      "(connection lost — gone\\u001b, code 1011; reconnecting, attempt 2; no resumption handle, so the conversation starts afresh)"
    )
    expect(LiveRepl.lineOf({ _tag: "Reconnecting", attempt: 1, reason: "gone", fresh: false })).toBe("(connection lost — gone; reconnecting, attempt 1)")
    expect(LiveRepl.lineOf({ _tag: "Connected", connection: 1, resumed: false })).toBeUndefined()
    expect(LiveRepl.lineOf({ _tag: "Connected", connection: 2, resumed: true })).toBe("(reconnected: the session resumed on connection 2)")
    expect(LiveRepl.lineOf({ _tag: "GoAway", timeLeft: Duration.seconds(5) })).toBe("(the server will close this connection in 5s; the session moves to a new one)")
    expect(LiveRepl.lineOf({ _tag: "Interrupted", turn: 1 })).toBe("(the model was interrupted)")
    expect(LiveRepl.lineOf({ _tag: "GenerationComplete", turn: 1 })).toBeUndefined()
    expect(LiveRepl.lineOf({ _tag: "ToolsChanged", added: [], removed: [], changed: ["notes"], connection: 2 })).toBe(
      "(the tools changed — changed notes; the session resumes on connection 2 to declare them)"
    )
  })

  it("a change of the tools is one status line naming them (escaped) and the connection that declares them", () => {
    expect(LiveRepl.lineOf({ _tag: "ToolsChanged", added: ["notes_search", "evil\u001b[2J"], removed: ["old"], changed: [], connection: 3 })).toBe(
      "(the tools changed — added notes_search, evil\\u001b[2J; removed old; the session resumes on connection 3 to declare them)"
    )
  })

  it.effect("--base-url with the in-process emulator is a usage error", () =>
    Effect.gen(function* () {
      const result = yield* agentfx(["live", "--provider", "emulator", "--base-url", "http://127.0.0.1:1"])
      expect(result.code).toBe(2)
      expect(result.stderr).toContain("--base-url does not apply to the in-process emulator")
    }))
})

describe("agentfx live's options", () => {
  /** A terminal with `lines` typed ahead, then the end of input. */
  const typed = (...lines: ReadonlyArray<string>) => Effect.tap(Io.memory(), (terminal) => Effect.zipRight(terminal.feed(...lines), terminal.end))

  it.scopedLive("--root: read_file reads under the folder given", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      writeFiles(dir, { "note.txt": "hello from the root\n" })
      const server = yield* emulator({ policy: Policy.script([{ calls: [{ name: "read_file", args: { path: "note.txt" } }] }, { text: "Read." }]) })
      const { env, flags } = viaGemini(server)
      const result = yield* agentfx(["live", ...flags, "--root", dir], { env, terminal: yield* typed("read it") })
      expect([result.code, withoutCallTimes(result.stdout, "(TIME)")]).toStrictEqual([
        0,
        [
          "agentfx live — /help for commands; Ctrl-C stops a turn; /exit or Ctrl-D quits.",
          "you> read it",
          '→ read_file({"path":"note.txt"})',
          '← read_file: {"path":"note.txt","size":20,"content":"hello from the root\\n"} (TIME)',
          "Read.",
          "you> ",
          ""
        ].join("\n")
      ])
    }))

  it.scopedLive("--concurrency 1: of two calls in one turn, the second is asked for and run once the first is answered", () =>
    Effect.gen(function* () {
      const server = yield* emulator({ policy: Policy.script([]) })
      const [a, b] = [`http://127.0.0.1:${server.port}/a`, `http://127.0.0.1:${server.port}/b`]
      yield* server.setPolicy(Policy.script([{ calls: [{ name: "fetch_url", args: { url: a } }, { name: "fetch_url", args: { url: b } }] }, { text: "Fetched." }]))
      const { env, flags } = viaGemini(server)
      const result = yield* agentfx(["live", ...flags, "--concurrency", "1", "--allow-host", `127.0.0.1:${server.port}`], { env, terminal: yield* typed("fetch both", "y", "y") })
      const calls = result.stdout.split("\n").flatMap((line) => (line.startsWith("→ ") || line.startsWith("← ") ? [`${line[0]} ${/\/(a|b)"/.exec(line)![1]}`] : []))
      expect([result.code, calls]).toStrictEqual([0, ["→ a", "← a", "→ b", "← b"]])
    }))

  it.scopedLive("--idle-timeout stops a turn whose model goes silent after its calls are answered; the session goes on", () =>
    Effect.gen(function* () {
      const server = yield* emulator({ policy: Policy.script([]) })
      const url = `http://127.0.0.1:${server.port}/`
      yield* server.setPolicy(Policy.script([{ calls: [{ name: "fetch_url", args: { url } }] }, { text: "Back again." }]))
      const { env, flags } = viaGemini(server)
      const { terminal, fiber } = yield* startLive([...flags, "--idle-timeout", "300ms", "--allow-host", `127.0.0.1:${server.port}`], env)
      yield* typeAt(terminal, 1, "fetch it")
      // The call waits for its approval: the model's answer after it is made to stall before it is given.
      yield* terminal.waitForOutput((out) => out.includes("allow? [y/N] "))
      yield* server.inject(Fault.stall)
      yield* terminal.feed("y")
      yield* typeAt(terminal, 2, "still there?")
      yield* typeAt(terminal, 3, "/exit")
      const result = yield* Fiber.join(fiber)
      expect(result.code).toBe(0)
      expect(result.stderr.split("\n").slice(2)).toStrictEqual([
        "(ModelTimeout: the model's stream stalled: nothing for 300ms (idleTimeout); the turn was stopped — say it again if you want an answer)",
        ""
      ])
      expect(result.stdout).toContain("you> still there?\nBack again.")
    }))
})
