/**
 * A run's bound on waiting for the model (`--run-timeout`) and the retry status, from the command line: a server
 * that never answers ends `run`, a `chat` message and an `eval` case at the bound with the error naming it; a
 * retried attempt shows `retrying (attempt 2/4, next in N s)` after its reason, on the status line of a terminal
 * and on a plain stderr line when piped, for `run`, `chat` and `eval`. Everything runs on the TestClock through the
 * real Gemini SDK, against the emulator (with injected 503s) or a server that never answers.
 */
import { Io } from "@agentfx/cli"
import { Fault } from "@agentfx/emulator"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Queue from "effect/Queue"
import * as TestClock from "effect/TestClock"
import { createServer } from "node:http"
import type { ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import * as path from "node:path"
import * as Repl from "../src/Repl.js"
import { agentfx, count, emulator, tempDir, untilEnd, viaGemini, writeFiles } from "./support/cli.js"
import { mathScenario } from "./support/scenarios.js"

const key = "AIza-SENTINEL-run-bounds-0123456789"

/** A Gemini-speaking server on 127.0.0.1 that never answers by itself: each request's response is handed to the test. */
const silentServer = Effect.acquireRelease(
  Effect.async<{ readonly origin: string; readonly held: Queue.Queue<ServerResponse>; readonly close: () => void }>((resume) => {
    const held = Effect.runSync(Queue.unbounded<ServerResponse>())
    const server = createServer((request, response) => {
      request.resume()
      request.on("end", () => Queue.unsafeOffer(held, response))
    })
    server.listen(0, "127.0.0.1", () =>
      resume(Effect.succeed({ origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, held, close: () => (server.closeAllConnections(), server.close()) }))
    )
  }),
  (server) => Effect.sync(server.close)
)

const answer = (text: string) =>
  `data: ${JSON.stringify({ candidates: [{ content: { role: "model", parts: [{ text }] }, finishReason: "STOP" }] })}\n\n`

/** One scenario and one case without a cassette: its model is the provider chosen on the command line. */
const suite = Effect.gen(function* () {
  const dir = yield* tempDir
  writeFiles(dir, {
    "scenarios/math.md": mathScenario,
    "cases/one.yaml": `id: subtracts\nscenario: math\ninput: what is 9 - 4\nexpected_function_calls:\n  - function_name: calculator\n    arguments: { expression: "9 - 4" }\n`
  })
  return { cases: path.join(dir, "cases"), scenarios: path.join(dir, "scenarios") }
})

/** Moves the TestClock a second at a time, letting I/O happen in between, until interrupted. */
const clockRuns = Effect.forever(Effect.zipRight(TestClock.adjust("1 second"), Effect.promise(() => new Promise((resolve) => setImmediate(resolve)))))

/** A terminal on stderr (status lines recorded), its input ended unless lines are fed. */
const terminalWith = (...lines: ReadonlyArray<string>) =>
  Effect.tap(Io.memory({ interactive: true }), (terminal) => (lines.length === 0 ? terminal.end : terminal.feed(...lines)))

const retryStatus = (attempt: string) => new RegExp(`Overloaded — retrying \\(attempt ${attempt}, next in \\d+ s\\)$`)
const retryNote = /\(the model request failed — Overloaded: UNAVAILABLE: The model is overloaded\. Please try again later\.; retrying \(attempt 2\/4, next in \d s\)\)/

describe("--run-timeout: the bound on a run's waiting for the model", () => {
  it.scoped("run: a server that never answers ends the run at the bound (exit 1), naming runTimeout; two attempts fit", () =>
    Effect.gen(function* () {
      const server = yield* silentServer
      const fiber = yield* Effect.fork(
        agentfx(["run", "--provider", "gemini", "--base-url", server.origin, "--first-byte-timeout", "20s", "--run-timeout", "30s", "hi"], { env: { GEMINI_API_KEY: key } })
      )
      const result = yield* untilEnd(fiber)
      expect(result.code).toBe(1)
      expect(result.stdout).toBe("")
      expect(result.stderr).toContain("ModelTimeout: the run has waited 30s on the model in all, its limit (runTimeout)")
      // The first attempt was cut by --first-byte-timeout and retried; the second by the run's bound, and not retried.
      expect(count(result.stderr, "retrying (attempt 2/4, next in")).toBe(1)
      expect(yield* Queue.size(server.held)).toBe(2)
      expect(result.stderr).not.toContain(key)
    }))

  it.scoped("chat: a message whose server never answers fails at the bound, naming runTimeout, and the session goes on", () =>
    Effect.gen(function* () {
      const server = yield* silentServer
      const terminal = yield* Io.memory()
      const fiber = yield* Effect.fork(agentfx(["chat", "--provider", "gemini", "--base-url", server.origin, "--run-timeout", "30s"], { env: { GEMINI_API_KEY: key }, terminal }))
      yield* terminal.waitForOutput((out) => count(out, Repl.prompt) >= 1)
      yield* terminal.feed("hello")
      yield* Queue.take(server.held)
      const moving = yield* Effect.fork(clockRuns)
      yield* terminal.waitForOutput((out) => count(out, Repl.prompt) >= 2)
      yield* Fiber.interrupt(moving)
      yield* terminal.feed("again")
      const second = yield* Queue.take(server.held)
      second.writeHead(200, { "content-type": "text/event-stream" }).end(answer("Here now."))
      yield* terminal.waitForOutput((out) => count(out, Repl.prompt) >= 3)
      yield* terminal.feed("/exit")
      const result = yield* Fiber.join(fiber)
      expect(result.code).toBe(0)
      expect(result.stderr).toContain("ModelTimeout: the run has waited 30s on the model in all, its limit (runTimeout)")
      expect(result.stdout).toContain("you> again\nHere now.\n")
    }))

  it.scoped("eval: a case whose server never answers is an error naming runTimeout, not cut first by the case's own limit", () =>
    Effect.gen(function* () {
      const server = yield* silentServer
      const { cases, scenarios } = yield* suite
      // 3 minutes: longer than a case's default limit of 2, which the bound moves past.
      const fiber = yield* Effect.fork(
        agentfx(["eval", cases, "--scenarios", scenarios, "--provider", "gemini", "--base-url", server.origin, "--run-timeout", "3m"], { env: { GEMINI_API_KEY: key } })
      )
      const result = yield* untilEnd(fiber)
      expect(result.code).toBe(1)
      expect(result.stdout).toMatch(/✗ subtracts[\s\S]*error: .*the run has waited 3m on the model in all, its limit \(runTimeout\)/)
      expect(result.stdout).not.toContain("timed out")
    }))
})

describe("the retry status: retrying (attempt 2/4, next in N s), after the reason", () => {
  it.scoped("run: on a terminal the status line counts down to the next attempt; the reason and the retry are also a line on stderr", () =>
    Effect.gen(function* () {
      const server = yield* emulator()
      yield* server.inject(Fault.overloaded(), { times: 2 })
      const { env, flags } = viaGemini(server)
      const terminal = yield* terminalWith()
      const result = yield* untilEnd(yield* Effect.fork(agentfx(["run", ...flags, "hello"], { env, terminal })))
      expect(result.code).toBe(0)
      expect(result.stdout).not.toBe("")
      const statuses = yield* terminal.statuses
      expect(statuses.some((status) => retryStatus("2/4").test(status))).toBe(true)
      // The wait before the third attempt (1.6 to 2.4 s) is counted down: more than one figure is shown.
      const counted = new Set(statuses.filter((status) => retryStatus("3/4").test(status)).map((status) => status.match(/next in (\d+) s/)![1]))
      expect(counted.size).toBeGreaterThan(1)
      expect(result.stderr).toMatch(retryNote)
      expect((yield* server.requests).length).toBe(3)
    }))

  it.scoped("run: once the wait is over, the status line says which attempt the model is being waited for", () =>
    Effect.gen(function* () {
      const server = yield* silentServer
      const terminal = yield* terminalWith()
      const fiber = yield* Effect.fork(agentfx(["run", "--provider", "gemini", "--base-url", server.origin, "hi"], { env: { GEMINI_API_KEY: key }, terminal }))
      const first = yield* Queue.take(server.held)
      first.writeHead(503, { "content-type": "application/json" }).end(JSON.stringify({ error: { code: 503, message: "The model is overloaded.", status: "UNAVAILABLE" } }))
      const moving = yield* Effect.fork(clockRuns)
      const second = yield* Queue.take(server.held)
      // The second attempt waits for its answer while the clock moves on: the spinner says so.
      yield* TestClock.adjust("1 second")
      yield* Fiber.interrupt(moving)
      second.writeHead(200, { "content-type": "text/event-stream" }).end(answer("Done."))
      const result = yield* Fiber.join(fiber)
      expect(result.code).toBe(0)
      const statuses = yield* terminal.statuses
      const retrying = statuses.findIndex((status) => retryStatus("2/4").test(status))
      const waiting = statuses.findIndex((status) => status.endsWith("waiting for gemini-2.5-flash… (attempt 2/4)"))
      expect(retrying).toBeGreaterThanOrEqual(0)
      expect(waiting).toBeGreaterThan(retrying)
    }))

  it.scoped("run, piped: no status line, the same line on stderr for each retry", () =>
    Effect.gen(function* () {
      const server = yield* emulator()
      yield* server.inject(Fault.overloaded(), { times: 2 })
      const { env, flags } = viaGemini(server)
      const result = yield* untilEnd(yield* Effect.fork(agentfx(["run", ...flags, "hello"], { env })))
      expect(result.code).toBe(0)
      expect(result.stderr).toMatch(retryNote)
      expect(result.stderr).toMatch(/retrying \(attempt 3\/4, next in \d s\)\)/)
    }))

  it.scoped("run --json: stdout holds the JSON alone, and each retry is the same line on stderr", () =>
    Effect.gen(function* () {
      const server = yield* emulator()
      yield* server.inject(Fault.overloaded(), { times: 1 })
      const { env, flags } = viaGemini(server)
      const result = yield* untilEnd(yield* Effect.fork(agentfx(["run", "--json", ...flags, "hello"], { env })))
      expect(result.code).toBe(0)
      expect(JSON.parse(result.stdout)).toMatchObject({ provider: "gemini", stopReason: { _tag: "Finished" } })
      expect(result.stderr).toMatch(retryNote)
    }))

  it.scoped("chat: the same status line and stderr line while a reply is retried", () =>
    Effect.gen(function* () {
      const server = yield* emulator()
      yield* server.inject(Fault.overloaded(), { times: 1 })
      const { env, flags } = viaGemini(server)
      const terminal = yield* terminalWith("hello", "/exit")
      const result = yield* untilEnd(yield* Effect.fork(agentfx(["chat", ...flags], { env, terminal })))
      expect(result.code).toBe(0)
      expect((yield* terminal.statuses).some((status) => retryStatus("2/4").test(status))).toBe(true)
      expect(result.stderr).toMatch(retryNote)
    }))

  it.scoped("eval: the progress line names the case being retried and the retry; piped, a line on stderr says it", () =>
    Effect.gen(function* () {
      const server = yield* emulator()
      const { env, flags } = viaGemini(server)
      const { cases, scenarios } = yield* suite

      yield* server.inject(Fault.overloaded(), { times: 1 })
      const terminal = yield* terminalWith()
      const onTerminal = yield* untilEnd(yield* Effect.fork(agentfx(["eval", cases, "--scenarios", scenarios, ...flags], { env, terminal })))
      expect(onTerminal.code).toBe(0)
      expect((yield* terminal.statuses).some((status) => /^eval: 0\/1 done, 0 passing, \S+ — subtracts: Overloaded — retrying \(attempt 2\/4, next in \d s\)$/.test(status))).toBe(
        true
      )

      yield* server.inject(Fault.overloaded(), { times: 1 })
      const piped = yield* untilEnd(yield* Effect.fork(agentfx(["eval", cases, "--scenarios", scenarios, ...flags], { env })))
      expect(piped.code).toBe(0)
      expect(piped.stderr).toMatch(
        /^eval: subtracts: the model request failed — Overloaded: UNAVAILABLE: The model is overloaded\. Please try again later\.; retrying \(attempt 2\/4, next in \d s\)$/m
      )
    }))
})

/** Waits, letting I/O happen but not moving the clock, until `text` is on stderr. */
const untilSaid = (terminal: Io.Memory, text: string): Effect.Effect<void> =>
  Effect.flatMap(terminal.stderr, (stderr) =>
    stderr.includes(text) ? Effect.void : Effect.zipRight(Effect.promise(() => new Promise((resolve) => setImmediate(resolve))), untilSaid(terminal, text))
  )

describe("Ctrl-C during a retry's wait of 50 s ends it at once, the clock standing still", () => {
  it.scoped("chat: the reply is cancelled and the session goes on; no second request", () =>
    Effect.gen(function* () {
      const server = yield* emulator()
      yield* server.inject(Fault.rateLimited({ retryAfter: "50 seconds" }), { times: 1 })
      const { env, flags } = viaGemini(server)
      const terminal = yield* Io.memory()
      const fiber = yield* Effect.fork(agentfx(["chat", ...flags], { env, terminal }))
      yield* terminal.waitForOutput((out) => count(out, Repl.prompt) >= 1)
      yield* terminal.feed("hello")
      yield* untilSaid(terminal, "next in 50 s")
      yield* terminal.interrupt
      yield* terminal.waitForOutput((out) => count(out, Repl.prompt) >= 2)
      yield* terminal.feed("/exit")
      const result = yield* Fiber.join(fiber)
      expect(result.code).toBe(0)
      expect(result.stdout).toContain("(cancelled — the session keeps everything before this message)")
      expect(result.stderr).toContain("retrying (attempt 2/4, next in 50 s, as the provider asked)")
      expect(yield* server.received).toBe(1)
    }))

  it.scoped("eval: the command ends with exit 130; no second request", () =>
    Effect.gen(function* () {
      const server = yield* emulator()
      yield* server.inject(Fault.rateLimited({ retryAfter: "50 seconds" }), { times: 1 })
      const { env, flags } = viaGemini(server)
      const { cases, scenarios } = yield* suite
      const terminal = yield* Io.memory()
      const fiber = yield* Effect.fork(agentfx(["eval", cases, "--scenarios", scenarios, ...flags], { env, terminal }))
      yield* untilSaid(terminal, "next in 50 s")
      yield* terminal.interrupt
      const result = yield* Fiber.join(fiber)
      expect(result.code).toBe(130)
      expect(yield* server.received).toBe(1)
    }))
})
