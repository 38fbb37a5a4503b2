/**
 * `agentfx eval`'s progress and its stop at a refused key (EvalProgress), in-process on the TestClock: the plain
 * line of each case when piped, the status line on a terminal, and the whole run stopped at the first refusal.
 */
import { EvalInput, EvalProgress, Io } from "@agentfx/cli"
import type { Agent, LanguageModel } from "@agentfx/core"
import { ModelError } from "@agentfx/core"
import { Scripted } from "@agentfx/core/testing"
import { Fault, Policy } from "@agentfx/emulator"
import { EvalReport } from "@agentfx/tools"
import type * as FileSystem from "@effect/platform/FileSystem"
import { describe, expect, it } from "@effect/vitest"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"
import * as path from "node:path"
import { agentfx, emulator, tempDir, untilEnd, viaGemini, writeFiles } from "./support/cli.js"
import { calculatorCase, mathScenario } from "./support/scenarios.js"

/** Three cases, the second failing; its id holds an escape sequence, which the progress shows escaped. */
const suite = Effect.gen(function* () {
  const dir = yield* tempDir
  writeFiles(dir, {
    "scenarios/math.md": mathScenario,
    "cases/a.yaml": calculatorCase("adds", "2 + 2", "2 + 2"),
    "cases/b.yaml": calculatorCase('"wrong\\e[31m"', "3 * 3", "3 + 3"),
    "cases/c.yaml": calculatorCase("subtracts", "9 - 4", "9 - 4")
  })
  return ["eval", path.join(dir, "cases"), "--scenarios", path.join(dir, "scenarios"), "--concurrency", "1", "--threshold", "0"]
})

const progressLines = (stderr: string) => stderr.split("\n").filter((line) => line.startsWith("eval: "))

describe("agentfx eval's progress", () => {
  it.scoped("piped: a line per case as it ends, with the cases done of all, those passing, the time, and the case", () =>
    Effect.gen(function* () {
      const args = yield* suite
      // The times are from the run's start, not from the clock's.
      yield* TestClock.adjust("1 hour")
      const result = yield* agentfx(args)
      expect(result.code).toBe(0)
      expect(result.stdout.split("\n").at(-2)).toBe("2/3 passed (66.67 %), 1 failed, 0 errored — threshold 0 %: PASS  0 ms")
      expect(progressLines(result.stderr)).toEqual([
        "eval: 1/3 done, 1 passing, 0ms — ✓ adds",
        "eval: 2/3 done, 1 passing, 0ms — ✗ wrong\\u001b[31m",
        "eval: 3/3 done, 2 passing, 0ms — ✓ subtracts"
      ])
    }))

  it.scoped("on a terminal: one status line, redrawn as cases end and as time goes by, cleared at the end", () =>
    Effect.gen(function* () {
      const args = yield* suite
      const terminal = yield* Effect.tap(Io.memory({ interactive: true }), (memory) => memory.end)
      const result = yield* agentfx(args, { terminal })
      expect(result.code).toBe(0)
      expect(progressLines(result.stderr)).toEqual([])
      // The line stops ticking with the run: time going by after it draws nothing.
      yield* TestClock.adjust("1 second")
      expect(yield* terminal.statuses).toEqual(["eval: 0/3 done, 0 passing, 0ms", "eval: 1/3 done, 1 passing, 0ms", "eval: 2/3 done, 1 passing, 0ms", "eval: 3/3 done, 2 passing, 0ms", ""])
    }))

  it.scoped("on a terminal the status line ticks every quarter of a second while a case waits for its model", () =>
    Effect.gen(function* () {
      const args = yield* suite
      const server = yield* emulator()
      yield* server.inject(Fault.stall, { times: 1 })
      const { env, flags } = viaGemini(server)
      const terminal = yield* Io.memory({ interactive: true })
      const fiber = yield* Effect.fork(agentfx([...args, ...flags], { env, terminal }))
      yield* server.awaitRequests(1)
      for (let tick = 0; tick < 5; tick++) {
        yield* TestClock.adjust("125 millis")
        yield* Effect.promise(() => new Promise((resolve) => setImmediate(resolve)))
      }
      yield* terminal.interrupt
      const result = yield* Fiber.join(fiber)
      expect(result).toEqual({ code: 130, stdout: "", stderr: `provider: gemini, model gemini-2.5-flash at ${server.geminiBaseUrl} (chosen with --provider)\nagentfx: interrupted\n` })
      // At 0, 250 and 500 ms (to a tenth of a second), then cleared as the run ends.
      expect(yield* terminal.statuses).toEqual(["eval: 0/3 done, 0 passing, 0ms", "eval: 0/3 done, 0 passing, 300ms", "eval: 0/3 done, 0 passing, 500ms", ""])
    }))
})

describe("agentfx eval's retries, piped", () => {
  it.scoped("each retried attempt is a line naming the case, the reason and the next attempt; the last, not retried, is none", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      writeFiles(dir, { "scenarios/math.md": mathScenario, "cases/a.yaml": calculatorCase("adds", "2 + 2", "2 + 2") })
      const server = yield* emulator()
      yield* server.inject(Fault.overloaded(), { times: 4 })
      const { env, flags } = viaGemini(server)
      const result = yield* untilEnd(yield* Effect.fork(agentfx(["eval", path.join(dir, "cases"), "--scenarios", path.join(dir, "scenarios"), "--threshold", "0", ...flags], { env })))
      expect(result.code).toBe(0)
      const retrying = (attempt: number) =>
        new RegExp(`^eval: adds: the model request failed — Overloaded: UNAVAILABLE: The model is overloaded\\. Please try again later\\.; retrying \\(attempt ${attempt}/4, next in \\d s\\)$`)
      expect(result.stderr.split("\n").slice(1)).toEqual([
        expect.stringMatching(retrying(2)),
        expect.stringMatching(retrying(3)),
        expect.stringMatching(retrying(4)),
        expect.stringMatching(/^eval: 1\/1 done, 0 passing, \d+s( \d+ms)? — ✗ adds$/),
        ""
      ])
    }))
})

describe("agentfx eval's retries on a terminal", () => {
  it.scoped("the status line names the case whose retry comes last of those still waiting, and its time left", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      writeFiles(dir, { "scenarios/math.md": mathScenario, "cases/a.yaml": calculatorCase("adds", "2 + 2", "2 + 2"), "cases/b.yaml": calculatorCase("subtracts", "9 - 4", "9 - 4") })
      const server = yield* emulator({ policy: Policy.script([Fault.rateLimited({ retryAfter: "5 seconds" }), Fault.rateLimited({ retryAfter: "9 seconds" })]) })
      const { env, flags } = viaGemini(server)
      const terminal = yield* Io.memory({ interactive: true })
      const fiber = yield* Effect.fork(agentfx(["eval", path.join(dir, "cases"), "--scenarios", path.join(dir, "scenarios"), "--concurrency", "2", ...flags], { env, terminal }))
      yield* server.awaitRequests(2)
      const waits = (text: string): Effect.Effect<void> =>
        Effect.flatMap(terminal.statuses, (statuses) =>
          statuses.some((status) => status.includes(text)) ? Effect.void : Effect.zipRight(Effect.promise(() => new Promise((resolve) => setImmediate(resolve))), waits(text))
        )
      yield* waits("next in 9 s")
      for (let second = 0; second < 5; second++) {
        yield* TestClock.adjust("1 second")
        yield* Effect.promise(() => new Promise((resolve) => setImmediate(resolve)))
      }
      // The first case's retry, at 5 s, ends it (the script has nothing more); the clock stands still until it has.
      yield* waits("eval: 1/2 done")
      yield* TestClock.adjust("1 second")
      yield* terminal.interrupt
      const result = yield* Fiber.join(fiber)
      expect(result.code).toBe(130)
      const statuses = yield* terminal.statuses
      // Which case was refused for 5 s and which for 9 s is the order their requests arrived in.
      const first = /— (\w+): RateLimited — retrying \(attempt 2\/4, next in 5 s, as the provider asked\)$/.exec(statuses.find((status) => status.includes("next in 5 s"))!)![1]!
      const second = first === "adds" ? "subtracts" : "adds"
      const retrying = (left: number) => `${second}: RateLimited — retrying (attempt 2/4, next in ${left} s, as the provider asked)`
      expect(statuses).toContain(`eval: 0/2 done, 0 passing, 0ms — ${retrying(9)}`)
      // The later retry is shown though the other comes first; once the other case has ended, still it, with its time left.
      expect(statuses).toContain(`eval: 0/2 done, 0 passing, 1s — ${retrying(8)}`)
      expect(statuses).toContain(`eval: 0/2 done, 0 passing, 4s 800ms — ${retrying(5)}`)
      expect(statuses).toContain(`eval: 1/2 done, 0 passing, 5s — ${retrying(4)}`)
      expect(statuses).toContain(`eval: 1/2 done, 0 passing, 6s — ${retrying(3)}`)
      expect(statuses.filter((status) => status.includes(`— ${first}:`))).toEqual([`eval: 0/2 done, 0 passing, 0ms — ${first}: RateLimited — retrying (attempt 2/4, next in 5 s, as the provider asked)`])
      expect(statuses.at(-1)).toBe("")
    }))

  it.scoped("the case told to wait longer first is the one shown; a retry under way is no longer shown, at its very time and after", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      writeFiles(dir, { "scenarios/math.md": mathScenario, "cases/a.yaml": calculatorCase("adds", "2 + 2", "2 + 2"), "cases/b.yaml": calculatorCase("subtracts", "9 - 4", "9 - 4") })
      // The retried attempts are never answered: their cases wait, their retries under way.
      const server = yield* emulator({ policy: Policy.script([Fault.rateLimited({ retryAfter: "9 seconds" }), Fault.rateLimited({ retryAfter: "5 seconds" }), Fault.stall, Fault.stall]) })
      const { env, flags } = viaGemini(server)
      const terminal = yield* Io.memory({ interactive: true })
      const fiber = yield* Effect.fork(agentfx(["eval", path.join(dir, "cases"), "--scenarios", path.join(dir, "scenarios"), "--concurrency", "2", ...flags], { env, terminal }))
      yield* server.awaitRequests(2)
      // Both refused: the status was drawn for each, the longer wait shown both times.
      const drawn = (count: number): Effect.Effect<void> =>
        Effect.flatMap(terminal.statuses, (statuses) =>
          statuses.filter((status) => status.includes("next in 9 s")).length >= count
            ? Effect.void
            : Effect.zipRight(Effect.promise(() => new Promise((resolve) => setImmediate(resolve))), drawn(count))
        )
      yield* drawn(2)
      for (let second = 0; second < 5; second++) {
        yield* TestClock.adjust("1 second")
        yield* Effect.promise(() => new Promise((resolve) => setImmediate(resolve)))
      }
      yield* server.awaitRequests(3)
      for (let second = 0; second < 5; second++) {
        yield* TestClock.adjust("1 second")
        yield* Effect.promise(() => new Promise((resolve) => setImmediate(resolve)))
      }
      yield* server.awaitRequests(4)
      yield* TestClock.adjust("1 second")
      yield* terminal.interrupt
      expect((yield* Fiber.join(fiber)).code).toBe(130)
      const statuses = yield* terminal.statuses
      const longer = /— (\w+): RateLimited — retrying \(attempt 2\/4, next in 9 s, as the provider asked\)$/.exec(statuses.find((status) => status.includes("next in 9 s"))!)![1]!
      const retrying = (left: number) => `${longer}: RateLimited — retrying (attempt 2/4, next in ${left} s, as the provider asked)`
      // Once both have failed, the longer wait is shown, though its case was told first.
      const shorter = longer === "adds" ? "subtracts" : "adds"
      expect(statuses.filter((status) => status.includes(`— ${shorter}:`))).toEqual([])
      expect(statuses).toContain(`eval: 0/2 done, 0 passing, 1s — ${retrying(8)}`)
      expect(statuses).toContain(`eval: 0/2 done, 0 passing, 6s — ${retrying(3)}`)
      expect(statuses).toContain(`eval: 0/2 done, 0 passing, 8s 800ms — ${retrying(1)}`)
      expect(statuses).toContain("eval: 0/2 done, 0 passing, 9s")
      expect(statuses).toContain("eval: 0/2 done, 0 passing, 10s")
      expect(statuses.filter((status) => status.includes("next in 0 s") || status.includes("next in -"))).toEqual([])
    }))
})

describe("agentfx eval stops at the first refusal of the key", () => {
  const refusal = "agentfx: gemini refused the API key (400): check GEMINI_API_KEY or GOOGLE_API_KEY, or run offline with --provider emulator"

  it.scoped("a refused key ends the whole run at once: one line naming the variable, no report, no further case asked", () =>
    Effect.gen(function* () {
      const args = yield* suite
      const server = yield* emulator()
      const { env, flags } = viaGemini(server)
      yield* server.inject(Fault.unauthorized(), { times: 1 })
      const result = yield* agentfx([...args, ...flags], { env })
      expect(result).toEqual({ code: 1, stdout: "", stderr: `provider: gemini, model gemini-2.5-flash at ${server.geminiBaseUrl} (chosen with --provider)\n${refusal}\n` })
      expect(yield* server.received).toBe(1)
    }))

  it.scoped("a key refused in the second case: the first's progress, then the refusal; the third is never asked", () =>
    Effect.gen(function* () {
      const args = yield* suite
      const server = yield* emulator({
        policy: Policy.script([{ calls: [{ name: "calculator", args: { expression: "2 + 2" } }] }, { text: "4" }, Fault.unauthorized()])
      })
      const { env, flags } = viaGemini(server)
      const result = yield* agentfx([...args, ...flags], { env })
      expect(result.code).toBe(1)
      expect(result.stdout).toBe("")
      expect(result.stderr.split("\n").slice(1)).toEqual(["eval: 1/3 done, 1 passing, 0ms — ✓ adds", refusal, ""])
      expect(yield* server.received).toBe(3)
    }))
})

describe("EvalProgress.guard", () => {
  it.effect("a refused key is reported whether the model answers whole or streams, other errors are not, and every call fails as it did", () =>
    Effect.gen(function* () {
      const refusals: Array<string> = []
      const failing = (error: ModelError.ModelError): LanguageModel.Service => ({
        provider: "test",
        model: "m",
        generate: () => Effect.fail(error),
        stream: () => Stream.fail(error)
      })
      const guarded = (error: ModelError.ModelError) => EvalProgress.guard(failing(error), (refused) => Effect.sync(() => refusals.push(`${refused._tag}: ${refused.message}`)))
      const request = { messages: [] } as unknown as LanguageModel.Request
      const refused = new ModelError.Unauthorized({ message: "key refused", status: 401 })
      const overloaded = new ModelError.Overloaded({ message: "busy" })
      expect(yield* Effect.flip(guarded(refused).generate(request))).toBe(refused)
      expect(yield* Effect.flip(Stream.runDrain(guarded(refused).stream(request)))).toBe(refused)
      expect(yield* Effect.flip(guarded(overloaded).generate(request))).toBe(overloaded)
      expect(yield* Effect.flip(Stream.runDrain(guarded(overloaded).stream(request)))).toBe(overloaded)
      expect(refusals).toEqual(["Unauthorized: key refused", "Unauthorized: key refused"])
      expect([guarded(refused).provider, guarded(refused).model]).toEqual(["test", "m"])
    }))
})


describe("EvalProgress.run, given its options directly", () => {
  /** Cases `ids` of the math scenario, each passing when the model just answers. */
  const input = (ids: ReadonlyArray<string>) =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      writeFiles(dir, {
        "scenarios/math.md": mathScenario,
        "cases/a.yaml": ids.map((id) => `- id: ${id}\n  scenario: math\n  input: hi from ${id}\n  expected_function_calls: []\n`).join("")
      })
      return yield* EvalInput.load(path.join(dir, "cases"), path.join(dir, "scenarios"), { root: dir, allowHosts: [] }).pipe(Effect.provide(NodeContext.layer))
    })
  /** A model answering "done"; `limited`: each request is first refused for 5 s (rate limited), then answered. */
  const model = (limited: boolean) => {
    const refused = new Set<string>()
    return Scripted.layer((request) =>
      Effect.sync(() => {
        const key = JSON.stringify(request.transcript)
        if (!limited || refused.has(key)) return { text: "done" }
        refused.add(key)
        return { error: new ModelError.RateLimited({ message: "slow down", retryAfter: Duration.seconds(5) }) }
      })
    )
  }
  const progress = (io: Io.Service) => ({ io, label: "eval", onRefusal: (error: ModelError.ModelError) => error })
  /** Runs `run` forked, moving the TestClock a second at a time until it ends. */
  const untilDone = <A, E>(run: Effect.Effect<A, E, FileSystem.FileSystem>) =>
    Effect.gen(function* () {
      const fiber = yield* Effect.fork(Effect.provide(run, NodeContext.layer))
      for (let step = 0; step < 100; step++) {
        const done = fiber.unsafePoll()
        if (done !== null) return yield* done
        yield* TestClock.adjust("1 second")
        yield* Effect.promise(() => new Promise((resolve) => setImmediate(resolve)))
      }
      return yield* Effect.dieMessage("the run did not end")
    })

  it.scoped("the report is named eval unless a suite is given; the threshold and the bail given are the report's", () =>
    Effect.gen(function* () {
      const { cases, scenarios } = yield* input(["a", "b"])
      const terminal = yield* Io.memory()
      const unnamed = yield* untilDone(EvalProgress.run(cases, { scenarios, model: model(false) }, progress(terminal.io)))
      expect([unnamed.suite, unnamed.summary.threshold, unnamed.stopped]).toStrictEqual(["eval", EvalReport.defaultThreshold, undefined])
      const named = yield* untilDone(EvalProgress.run(cases, { scenarios, model: model(false), suite: "mine", threshold: 0.5 }, progress(terminal.io)))
      expect([named.suite, named.summary.threshold]).toStrictEqual(["mine", 0.5])
      // The first case errors (its model refuses for good): with bail 1, the second is not run.
      const bailed = yield* untilDone(EvalProgress.run(cases, { scenarios, model: Scripted.layer([]), concurrency: 1, bail: 1 }, progress(terminal.io)))
      expect(bailed.stopped).toStrictEqual({ bail: 1, notRun: ["b"] })
    }))

  it.scoped("a retried attempt is given to the caller's own hook as well as shown; without agent options it is shown all the same", () =>
    Effect.gen(function* () {
      const { cases, scenarios } = yield* input(["a"])
      const theirs: Array<string> = []
      const hook = (failed: Agent.AttemptFailed) => Effect.sync(() => theirs.push(`${failed.error._tag} ${failed.attempt}`))
      const terminal = yield* Io.memory()
      const hooked = yield* untilDone(EvalProgress.run(cases, { scenarios, model: model(true), agent: { onAttemptFailed: hook } }, progress(terminal.io)))
      expect([hooked.summary.passed, theirs]).toStrictEqual([1, ["RateLimited 1"]])
      const bare = yield* untilDone(EvalProgress.run(cases, { scenarios, model: model(true) }, progress(terminal.io)))
      expect(bare.summary.passed).toBe(1)
      expect((yield* terminal.stderr).split("\n").filter((line) => line.includes("RateLimited"))).toStrictEqual([
        "eval: a: the model request failed — RateLimited: slow down; retrying (attempt 2/4, next in 5 s, as the provider asked)",
        "eval: a: the model request failed — RateLimited: slow down; retrying (attempt 2/4, next in 5 s, as the provider asked)"
      ])
    }))

  it.scoped("on a terminal, of two cases told to retry at the very same time, the one told first is shown", () =>
    Effect.gen(function* () {
      const { cases, scenarios } = yield* input(["a", "b"])
      const terminal = yield* Io.memory({ interactive: true })
      yield* untilDone(EvalProgress.run(cases, { scenarios, model: model(true), concurrency: 2 }, progress(terminal.io)))
      const retrying = (yield* terminal.statuses).filter((status) => status.includes("RateLimited"))
      const first = /— (\w+): RateLimited/.exec(retrying[0]!)![1]!
      expect(retrying.map((status) => /— (\w+): RateLimited/.exec(status)![1])).toStrictEqual(retrying.map(() => first))
      expect(retrying.length).toBeGreaterThan(1)
    }))
})
