/**
 * How the commands ask the model: the bounds on an answer (`--first-byte-timeout`, `--idle-timeout`,
 * `--turn-timeout`), `--max-response-bytes` and `--temperature`, read strictly and passed to the loop and the
 * provider layer; and a retried attempt whose partial answer was printed is marked void, never silently repeated.
 * Runs that wait use the TestClock: the test moves it once the server has done what the case needs.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Queue from "effect/Queue"
import * as TestClock from "effect/TestClock"
import { createServer } from "node:http"
import type { ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import * as Screen from "../src/Screen.js"
import * as Repl from "../src/Repl.js"
import { agentfx, emulator, startInteractive, typeAt as typeAtPrompt, untilEnd, viaGemini } from "./support/cli.js"

const typeAt = typeAtPrompt(Repl.prompt)

const sentinel = "AIza-SENTINEL-timeouts-0123456789"

/** A Gemini-speaking server on 127.0.0.1 that hands each request's response to the test; its bodies are kept. */
const holding = Effect.acquireRelease(
  Effect.async<{ readonly origin: string; readonly held: Queue.Queue<ServerResponse>; readonly bodies: Array<string>; readonly close: () => void }>((resume) => {
    const held = Effect.runSync(Queue.unbounded<ServerResponse>())
    const bodies: Array<string> = []
    const server = createServer((request, response) => {
      let body = ""
      request.setEncoding("utf8").on("data", (chunk: string) => (body += chunk))
      request.on("end", () => {
        bodies.push(body)
        Queue.unsafeOffer(held, response)
      })
    })
    server.listen(0, "127.0.0.1", () =>
      resume(
        Effect.succeed({
          origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
          held,
          bodies,
          close: () => (server.closeAllConnections(), server.close())
        })
      )
    )
  }),
  (server) => Effect.sync(server.close)
)

const chunk = (text: string, finish = false) =>
  `data: ${JSON.stringify({ candidates: [{ content: { role: "model", parts: [{ text }] }, ...(finish ? { finishReason: "STOP" } : {}) }] })}\n\n`

describe("the bounds on a model answer, from the command line", () => {
  const bad: ReadonlyArray<[ReadonlyArray<string>, string]> = [
    [["--idle-timeout", "0"], "--idle-timeout 0: the duration must be longer than 0"],
    [["--first-byte-timeout", "soon"], "--first-byte-timeout soon: a duration is needed: a number with ms, s, m or h, e.g. 30s, 500ms, 2m"],
    [["--turn-timeout", "30d"], "--turn-timeout 30d: a duration is needed"],
    [["--turn-timeout", "1000h"], "--turn-timeout 1000h: the duration must be at most 24 days"],
    [["--run-timeout", "0"], "--run-timeout 0: the duration must be longer than 0"],
    [["--run-timeout", "never"], "--run-timeout never: a duration is needed"],
    [["--max-response-bytes", "lots"], "--max-response-bytes lots: a size is needed"],
    [["--max-response-bytes", "0"], "--max-response-bytes 0: the size must be at least 1 byte"],
    [["--temperature", "3"], "--temperature 3: a number from 0 to 2 is needed"]
  ]
  for (const command of ["run", "chat", "eval", "live"]) {
    // live runs no agent loop: it has no --temperature and no --run-timeout.
    for (const [flags, message] of bad.filter(([flags]) => command !== "live" || (flags[0] !== "--temperature" && flags[0] !== "--run-timeout"))) {
      it.scopedLive(`${command} ${flags.join(" ")} is a usage error (exit 2), and nothing runs`, () =>
        Effect.gen(function* () {
          const args = command === "run" ? ["run", ...flags, "hi"] : command === "eval" ? ["eval", "cases", "--scenarios", "s", ...flags] : [command, ...flags]
          const result = yield* agentfx(args)
          expect(result.code).toBe(2)
          expect(result.stderr).toContain(`agentfx: ${message}`)
          expect(result.stdout).toBe("")
        }))
    }
  }

  it.scoped("a stream that stalls after printing part of an answer: the part is marked discarded, and the retried answer follows", () =>
    Effect.gen(function* () {
      const server = yield* holding
      const fiber = yield* Effect.fork(
        agentfx(["run", "--provider", "gemini", "--base-url", server.origin, "--idle-timeout", "5s", "hi"], { env: { GEMINI_API_KEY: sentinel } })
      )
      const first = yield* Queue.take(server.held)
      first.writeHead(200, { "content-type": "text/event-stream" }).write(chunk("A partial answer that "))
      // Nothing more: the idle bound cuts the attempt, the retry policy waits, and the second attempt succeeds.
      const moved = yield* Effect.fork(untilEnd(fiber))
      const second = yield* Queue.take(server.held)
      second.writeHead(200, { "content-type": "text/event-stream" }).end(chunk("The whole answer.", true))
      const result = yield* Fiber.join(moved)
      expect(result.code).toBe(0)
      expect(result.stdout).toBe(`A partial answer that \n${Screen.discardedText}\nThe whole answer.\n`)
      expect(result.stderr).toMatch(/ModelTimeout: the model's stream stalled: nothing for 5s \(idleTimeout\); retrying/)
      expect(result.stdout + result.stderr).not.toContain(sentinel)
    }))

  it.scoped("a failed attempt that printed nothing says nothing is discarded", () =>
    Effect.gen(function* () {
      const server = yield* holding
      const fiber = yield* Effect.fork(
        agentfx(["run", "--provider", "gemini", "--base-url", server.origin, "--first-byte-timeout", "3s", "hi"], { env: { GEMINI_API_KEY: sentinel } })
      )
      yield* Queue.take(server.held)
      const moved = yield* Effect.fork(untilEnd(fiber))
      const second = yield* Queue.take(server.held)
      second.writeHead(200, { "content-type": "text/event-stream" }).end(chunk("Here it is.", true))
      const result = yield* Fiber.join(moved)
      expect(result.code).toBe(0)
      expect(result.stdout).toBe("Here it is.\n")
      expect(result.stderr).toMatch(/ModelTimeout: the model sent nothing within 3s \(firstByteTimeout\)/)
    }))

  it.scoped("--turn-timeout bounds a whole answer: a run whose every attempt outlives it fails (exit 1) naming the bound", () =>
    Effect.gen(function* () {
      const server = yield* holding
      const fiber = yield* Effect.fork(
        agentfx(["run", "--provider", "gemini", "--base-url", server.origin, "--turn-timeout", "2s", "hi"], { env: { GEMINI_API_KEY: sentinel } })
      )
      const result = yield* untilEnd(fiber)
      expect(result.code).toBe(1)
      expect(result.stderr).toContain("ModelTimeout: the model did not finish its answer within 2s (turnTimeout)")
      expect(yield* Queue.size(server.held)).toBe(4)
    }))

  it.scoped("a policy that runs out: the last attempt's partial answer is marked void, but no retry is announced for it", () =>
    Effect.gen(function* () {
      const server = yield* holding
      // Every attempt prints a part, then stalls.
      yield* Effect.forkScoped(
        Effect.forever(Effect.map(Queue.take(server.held), (response) => response.writeHead(200, { "content-type": "text/event-stream" }).write(chunk("Part "))))
      )
      const fiber = yield* Effect.fork(
        agentfx(["run", "--provider", "gemini", "--base-url", server.origin, "--idle-timeout", "2s", "hi"], { env: { GEMINI_API_KEY: sentinel } })
      )
      const result = yield* untilEnd(fiber)
      expect(result.code).toBe(1)
      expect(server.bodies.length).toBe(4)
      expect(result.stdout).toBe(`${`Part \n${Screen.discardedText}\n`.repeat(3)}Part \n${Screen.voidText}\n`)
      expect(result.stderr.match(/retrying/g)?.length).toBe(3)
      expect(result.stderr).toContain("ModelTimeout")
    }))

  it.scoped("--max-response-bytes caps what is read of an answer (exit 1, naming the limit)", () =>
    Effect.gen(function* () {
      const fiber = yield* Effect.fork(agentfx(["run", "--max-response-bytes", "64", "what", "is", "2 + 3 * 4?"]))
      const result = yield* untilEnd(fiber)
      expect(result.code).toBe(1)
      expect(result.stderr).toContain("MalformedResponse: the response is larger than the limit of 64 bytes (maxResponseBytes)")
    }))

  it.scopedLive("--max-response-bytes above the answer's size changes nothing", () =>
    Effect.gen(function* () {
      const result = yield* agentfx(["run", "--max-response-bytes", "1MiB", "what", "is", "2 + 3 * 4?"])
      expect(result.code).toBe(0)
      expect(result.stdout).toContain("← calculator")
    }))

  it.scopedLive("--temperature is sent when given, and no temperature otherwise", () =>
    Effect.gen(function* () {
      const server = yield* emulator()
      const { env, flags } = viaGemini(server)
      expect((yield* agentfx(["run", ...flags, "hello"], { env })).code).toBe(0)
      expect((yield* agentfx(["run", ...flags, "--temperature", "0.4", "hello"], { env })).code).toBe(0)
      const sent = (yield* server.requests).map((request) => JSON.stringify(request.body))
      expect(sent).toHaveLength(2)
      expect(sent[0]).not.toContain("temperature")
      expect(sent[1]).toContain(`"temperature":0.4`)
    }))
})

describe("the bounds in chat", () => {
  it.scoped("chat: a reply cut by --idle-timeout is marked discarded before the retried one, and the session goes on", () =>
    Effect.gen(function* () {
      const server = yield* holding
      const { terminal, fiber } = yield* startInteractive("chat", ["--provider", "gemini", "--base-url", server.origin, "--idle-timeout", "4s"], {
        GEMINI_API_KEY: sentinel
      })
      yield* typeAt(terminal, 1, "hello")
      const first = yield* Queue.take(server.held)
      first.writeHead(200, { "content-type": "text/event-stream" }).write(chunk("Half a "))
      yield* terminal.waitForOutput((out) => out.includes("Half a "))
      yield* TestClock.adjust("4 seconds")
      const moved = yield* Effect.fork(Effect.forever(Effect.zipRight(TestClock.adjust("1 second"), Effect.promise(() => new Promise((resolve) => setImmediate(resolve))))))
      const second = yield* Queue.take(server.held)
      yield* Fiber.interrupt(moved)
      second.writeHead(200, { "content-type": "text/event-stream" }).end(chunk("A whole reply.", true))
      yield* typeAt(terminal, 2, "/exit")
      const result = yield* Fiber.join(fiber)
      expect(result.code).toBe(0)
      expect(result.stdout).toContain(`you> hello\nHalf a \n${Screen.discardedText}\nA whole reply.\n`)
      expect(server.bodies).toHaveLength(2)
    }))
})
