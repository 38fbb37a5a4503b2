/**
 * How a run looks in the terminal, in process on a memory terminal: the spinner and its status line (on the
 * TestClock), the words of a stop, a retried attempt and a rejected typed answer, calls and their results, colour,
 * the preview's cut, and `shown` waiting for a call's line.
 */
import { Io, Screen } from "@agentfx/cli"
import { FunctionCall, FunctionResponse, LanguageModel, ToolError, Turn } from "@agentfx/core"
import type { Agent } from "@agentfx/core"
import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as TestClock from "effect/TestClock"
import { attemptFailed as failed } from "./support/attemptFailed.js"

const frames = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]

const turnStarted: Agent.AgentEvent = { _tag: "TurnStarted", turn: 1 }
const textDelta = (text: string): Agent.AgentEvent => ({ _tag: "TextDelta", turn: 1, text })
const done = (stopReason: Agent.StopReason): Agent.AgentEvent => ({
  _tag: "Done",
  result: { text: "", calls: [], turns: 1, stopReason, transcript: [], usage: LanguageModel.emptyUsage }
})
const call = FunctionCall.make({ id: "c1", name: "get_weather", args: { city: "Oslo" } })
const finished = (result: Either.Either<unknown, ToolError.ToolError>): Agent.AgentEvent => ({
  _tag: "CallFinished",
  turn: 1,
  record: {
    id: "c1",
    name: "get_weather",
    args: { city: "Oslo" },
    result,
    response: FunctionResponse.make({ id: "c1", name: "get_weather", response: {}, isError: Either.isLeft(result) }),
    duration: Duration.millis(1234),
    turn: 1
  }
})
const rejected = (issues: ReadonlyArray<{ readonly path: string; readonly message: string }>, willRetry: boolean): Extract<Agent.AgentEvent, { readonly _tag: "OutputRejected" }> => ({
  _tag: "OutputRejected",
  turn: 1,
  issues,
  attempt: 2,
  willRetry
})

/** Lets the spinner's fiber draw (it is forked; the TestClock moves nothing by itself). */
const settle = TestClock.adjust(0)

const on = (memory: Io.MemoryOptions = {}, options: Screen.Options = {}) =>
  Effect.map(Io.memory(memory), (terminal) => ({ terminal, screen: Screen.make(terminal.io, options) }))

const printed = (terminal: Io.Memory) => Effect.all({ stdout: terminal.stdout, stderr: terminal.stderr })

describe("Screen: the spinner", () => {
  it.effect("on an interactive terminal, a turn shows the frames in order, one every 80 ms, and the first text clears the line and stops them", () =>
    Effect.gen(function* () {
      const { terminal, screen } = yield* on({ interactive: true })
      yield* screen.event(turnStarted)
      yield* settle
      for (let i = 0; i < 10; i++) yield* TestClock.adjust(80)
      yield* screen.event(textDelta("Hi"))
      yield* TestClock.adjust(800)
      expect(yield* terminal.statuses).toStrictEqual([...frames, frames[0]].map((frame) => `${frame} waiting for the model…`).concat([""]))
      expect(yield* printed(terminal)).toStrictEqual({ stdout: "Hi", stderr: "" })
    }))

  it.effect("says what it waits for (waitingFor), is not started twice, and stops at the turn's end, cleared with \"\"", () =>
    Effect.gen(function* () {
      const { terminal, screen } = yield* on({ interactive: true }, { waitingFor: "gemini-2.5-flash" })
      yield* screen.event(turnStarted)
      yield* screen.event(turnStarted)
      yield* settle
      yield* TestClock.adjust(80)
      yield* screen.event({ _tag: "TurnFinished", turn: 1, response: { turn: Turn.model(""), usage: LanguageModel.emptyUsage, finishReason: "stop" } })
      yield* TestClock.adjust(800)
      expect(yield* terminal.statuses).toStrictEqual(["⠋ waiting for gemini-2.5-flash…", "⠙ waiting for gemini-2.5-flash…", ""])
      yield* screen.stopSpinner
      expect(yield* terminal.statuses).toHaveLength(3)
    }))

  it.effect("no spinner when stderr is not a terminal: no status is drawn, nor cleared", () =>
    Effect.gen(function* () {
      const terminal = yield* Io.memory()
      const statuses: Array<string> = []
      const screen = Screen.make({ ...terminal.io, status: (text) => Effect.sync(() => statuses.push(text)) })
      yield* screen.event(turnStarted)
      yield* settle
      yield* TestClock.adjust(800)
      yield* screen.event(textDelta("Hi"))
      yield* screen.event(done({ _tag: "Finished" }))
      expect(statuses).toStrictEqual([])
      expect(yield* printed(terminal)).toStrictEqual({ stdout: "Hi\n", stderr: "" })
    }))

  it.effect("after a failed attempt that is retried, it counts the wait down, then waits for the model naming the next attempt; a new turn forgets the retry", () =>
    Effect.gen(function* () {
      const { terminal, screen } = yield* on({ interactive: true })
      yield* TestClock.adjust(1000)
      yield* screen.event(turnStarted)
      yield* settle
      yield* screen.event(failed({ retryIn: Duration.millis(160) }))
      yield* settle
      yield* TestClock.adjust(80)
      yield* TestClock.adjust(80)
      yield* screen.event(textDelta("Hi\n"))
      yield* screen.event(turnStarted)
      yield* settle
      yield* screen.event(done({ _tag: "Finished" }))
      expect(yield* terminal.statuses).toStrictEqual([
        "⠋ waiting for the model…",
        "",
        "⠋ Overloaded — retrying (attempt 2/4, next in 1 s)",
        "⠙ Overloaded — retrying (attempt 2/4, next in 1 s)",
        "⠹ waiting for the model… (attempt 2/4)",
        "",
        "⠋ waiting for the model…",
        ""
      ])
      expect(yield* printed(terminal)).toStrictEqual({ stdout: "Hi\n", stderr: "(the model request failed — Overloaded: busy; retrying (attempt 2/4, next in 1 s))\n" })
    }))

  it.effect("streamed empty text neither stops the spinner nor leaves the cursor mid-line", () =>
    Effect.gen(function* () {
      const { terminal, screen } = yield* on({ interactive: true })
      yield* screen.event(turnStarted)
      yield* settle
      yield* screen.text("")
      yield* screen.line("a line")
      expect(yield* terminal.statuses).toStrictEqual(["⠋ waiting for the model…", ""])
      expect(yield* terminal.stdout).toBe("a line\n")
    }))
})

describe("Screen: failed attempts", () => {
  it("attemptText says a retried attempt, and nothing for the last one", () => {
    expect([Screen.attemptText(failed()), Screen.attemptText(failed({ willRetry: false }))]).toStrictEqual([
      "(the model request failed — Overloaded: busy; retrying (attempt 2/4, next in 3 s))",
      undefined
    ])
    expect([Screen.discardedText, Screen.voidText]).toStrictEqual(["[retrying — the partial answer above is discarded]", "[the partial answer above is discarded]"])
  })

  it.effect("text printed before a failed attempt is marked discarded (retried) or void (the last); no text, or only empty text, marks nothing", () =>
    Effect.gen(function* () {
      const { terminal, screen } = yield* on()
      yield* screen.event(failed({ willRetry: false }))
      yield* screen.event(textDelta(""))
      yield* screen.event(failed())
      yield* screen.event(textDelta("Half"))
      yield* screen.event(failed())
      yield* screen.event(textDelta("Again"))
      yield* screen.event(failed({ willRetry: false, attempt: 4 }))
      expect(yield* printed(terminal)).toStrictEqual({
        stdout: "Half\n[retrying — the partial answer above is discarded]\nAgain\n[the partial answer above is discarded]\n",
        stderr: "(the model request failed — Overloaded: busy; retrying (attempt 2/4, next in 3 s))\n".repeat(2)
      })
    }))
})

describe("Screen: how a run ends", () => {
  it.effect("a stop says why in its exact words; a finished run only ends the line", () =>
    Effect.gen(function* () {
      const { terminal, screen } = yield* on()
      yield* screen.event(textDelta("Answer"))
      yield* screen.event(done({ _tag: "Finished" }))
      yield* screen.event(done({ _tag: "MaxTurns", maxTurns: 5 }))
      yield* screen.event(done({ _tag: "ToolCalled", name: "finish\u001b[2J" }))
      yield* screen.event(done({ _tag: "RepeatedCall", name: "search", times: 3 }))
      expect(yield* printed(terminal)).toStrictEqual({
        stdout: [
          "Answer",
          "(stopped: the model used all 5 turns; raise --max-turns to let it continue)",
          "(stopped: finish\\u001b[2J was called)",
          "(stopped: search was called 3 times with the same arguments)",
          ""
        ].join("\n"),
        stderr: ""
      })
    }))

  it.effect("a stop on an interactive terminal stops the spinner first", () =>
    Effect.gen(function* () {
      const { terminal, screen } = yield* on({ interactive: true, color: true })
      yield* screen.event(turnStarted)
      yield* settle
      yield* screen.event(done({ _tag: "MaxTurns", maxTurns: 1 }))
      expect(yield* terminal.statuses).toStrictEqual(["\u001b[2m⠋\u001b[0m waiting for the model…", ""])
      expect(yield* terminal.stdout).toBe("\u001b[2m(stopped: the model used all 1 turns; raise --max-turns to let it continue)\u001b[0m\n")
    }))
})

describe("Screen: typed output", () => {
  it("outputRejectedText names the first issue (with its path when it has one) and how many more, and whether the model is asked again", () => {
    expect([
      Screen.outputRejectedText(rejected([], true)),
      Screen.outputRejectedText(rejected([{ path: "", message: "is not an object" }], false)),
      Screen.outputRejectedText(rejected([{ path: "category", message: "is missing" }], true)),
      Screen.outputRejectedText(rejected([{ path: "a", message: "is\nmissing\u001b[2J" }, { path: "b", message: "x" }, { path: "", message: "y" }], false))
    ]).toStrictEqual([
      "(the answer does not match the output schema; asking again, answer 2)",
      "(the answer does not match the output schema: is not an object; no more corrections, answer 2)",
      "(the answer does not match the output schema: category: is missing; asking again, answer 2)",
      "(the answer does not match the output schema: a: is\nmissing\\u001b[2J (and 2 more); no more corrections, answer 2)"
    ])
  })

  it.effect("a rejected answer is a note on stderr; a decoded answer, partial output and reasoning print nothing", () =>
    Effect.gen(function* () {
      const { terminal, screen } = yield* on({ color: true })
      yield* screen.event({ _tag: "ReasoningDelta", turn: 1, text: "thinking" })
      yield* screen.event({ _tag: "OutputDelta", turn: 1, partial: { category: "b" } })
      yield* screen.event({ _tag: "OutputDecoded", turn: 1, value: { category: "bug" } })
      expect(yield* printed(terminal)).toStrictEqual({ stdout: "", stderr: "" })
      yield* screen.event(rejected([{ path: "category", message: "is missing" }], true))
      expect(yield* printed(terminal)).toStrictEqual({
        stdout: "",
        stderr: "\u001b[2m(the answer does not match the output schema: category: is missing; asking again, answer 2)\u001b[0m\n"
      })
    }))
})

describe("Screen: calls", () => {
  it.effect("a call's start and its result or failure, with how long it took, each on its own line", () =>
    Effect.gen(function* () {
      const { terminal, screen } = yield* on()
      yield* screen.event(textDelta("Looking"))
      yield* screen.event({ _tag: "CallStarted", turn: 1, call })
      yield* screen.event(finished(Either.right({ celsius: 7 })))
      yield* screen.event(finished(Either.left(new ToolError.ExecutionFailed({ name: "get_weather", cause: "offline", defect: false }))))
      expect(yield* terminal.stdout).toBe(
        "Looking\n→ get_weather({\"city\":\"Oslo\"})\n← get_weather: {\"celsius\":7} (1s 234ms)\n← get_weather failed: \"get_weather\" failed: offline (1s 234ms)\n"
      )
    }))

  it.effect("the color option overrides the terminal's, both ways; left out, the terminal's applies", () =>
    Effect.gen(function* () {
      const lines = (memory: Io.MemoryOptions, options: Screen.Options) =>
        Effect.gen(function* () {
          const { terminal, screen } = yield* on(memory, options)
          yield* screen.event({ _tag: "CallStarted", turn: 1, call })
          yield* screen.event(finished(Either.right(7)))
          yield* screen.event(finished(Either.left(new ToolError.ExecutionFailed({ name: "get_weather", cause: "offline", defect: false }))))
          return yield* terminal.stdout
        })
      const painted = "\u001b[36m→ get_weather({\"city\":\"Oslo\"})\u001b[0m\n" +
        "\u001b[2m← get_weather: 7\u001b[0m\u001b[2m (1s 234ms)\u001b[0m\n" +
        "\u001b[31m← get_weather failed: \"get_weather\" failed: offline\u001b[0m\u001b[2m (1s 234ms)\u001b[0m\n"
      const plain = "→ get_weather({\"city\":\"Oslo\"})\n← get_weather: 7 (1s 234ms)\n← get_weather failed: \"get_weather\" failed: offline (1s 234ms)\n"
      expect([
        yield* lines({ color: false }, { color: true }),
        yield* lines({ color: true }, { color: false }),
        yield* lines({ color: true }, {}),
        yield* lines({ color: false }, {})
      ]).toStrictEqual([painted, plain, painted, plain])
    }))

  it.effect("shown waits for the call's line, is at once for a call already shown, and a waiter that gives up leaves the others waiting", () =>
    Effect.gen(function* () {
      const { terminal, screen } = yield* on({}, { askedFor: (asked) => asked.id === "c2" })
      const first = yield* Effect.fork(screen.shown("c1"))
      const quitter = yield* Effect.fork(screen.shown("c2"))
      const second = yield* Effect.fork(screen.shown("c2"))
      yield* settle
      expect(yield* Effect.forEach([first, quitter, second], Fiber.poll)).toStrictEqual([Option.none(), Option.none(), Option.none()])
      yield* screen.event({ _tag: "CallStarted", turn: 1, call })
      yield* Fiber.join(first)
      yield* screen.shown("c1")
      yield* Fiber.interrupt(quitter)
      yield* screen.event({ _tag: "CallStarted", turn: 1, call: FunctionCall.make({ id: "c2", name: "delete_file", args: {} }) })
      expect(yield* Fiber.await(second)).toStrictEqual(Exit.void)
      expect(yield* terminal.stdout).toBe("→ get_weather({\"city\":\"Oslo\"})\n")
    }))
})

describe("Screen: preview", () => {
  it("JSON on one line, kept whole up to its limit and cut to it with … past it; what JSON cannot show as its string", () => {
    const atLimit = `"${"x".repeat(158)}"`
    expect([
      Screen.preview("x".repeat(158)),
      Screen.preview("x".repeat(157)),
      Screen.preview("x".repeat(159)),
      Screen.preview({ a: [1, "b"] }, 8),
      Screen.preview({ a: [1, "b"] }, 11),
      Screen.preview(undefined),
      Screen.preview(12n)
    ]).toStrictEqual([atLimit, `"${"x".repeat(157)}"`, `${atLimit.slice(0, 159)}…`, "{\"a\":[1…", "{\"a\":[1,\"b…", "undefined", "12"])
    expect(Screen.preview({ a: [1, "b"] }, 13)).toBe("{\"a\":[1,\"b\"]}")
    expect(Screen.preview({ a: [1, "b"] }, 12)).toBe("{\"a\":[1,\"b\"…")
  })

  it("callTime is to the millisecond, and 0ms under half of one", () => {
    expect([Screen.callTime(Duration.millis(1234)), Screen.callTime(Duration.micros(400n)), Screen.callText(call)]).toStrictEqual([
      "1s 234ms",
      "0ms",
      "get_weather({\"city\":\"Oslo\"})"
    ])
  })
})
