/**
 * A run's bound on waiting for the model (`--run-timeout`), from the command line: a server that never answers ends
 * `run`, a `chat` message and an `eval` case at the bound with the error naming it. Everything runs on the TestClock
 * through the real Gemini SDK, against a server that never answers.
 */
import { Io } from "@agentfx/cli"
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
import { agentfx, count, tempDir, untilEnd, writeFiles } from "./support/cli.js"

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

const scenario = `---
name: math
description: Arithmetic
available_functions:
  - name: calculator
    description: Evaluates an arithmetic expression
    parameters:
      type: object
      properties:
        expression: { type: string }
      required: [expression]
---
Compute with the calculator.
`

/** One scenario and one case without a cassette: its model is the provider chosen on the command line. */
const suite = Effect.gen(function* () {
  const dir = yield* tempDir
  writeFiles(dir, {
    "scenarios/math.md": scenario,
    "cases/one.yaml": `id: subtracts\nscenario: math\ninput: what is 9 - 4\nexpected_function_calls:\n  - function_name: calculator\n    arguments: { expression: "9 - 4" }\n`
  })
  return { cases: path.join(dir, "cases"), scenarios: path.join(dir, "scenarios") }
})

/** Moves the TestClock a second at a time, letting I/O happen in between, until interrupted. */
const clockRuns = Effect.forever(Effect.zipRight(TestClock.adjust("1 second"), Effect.promise(() => new Promise((resolve) => setImmediate(resolve)))))

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
      expect(count(result.stderr, "; retrying")).toBe(1)
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
