import { LiveAgent, LiveModel, Registry, Tool } from "@agentfx/core"
import { ScriptedLive } from "@agentfx/core/testing"
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Either, Layer, Schema, TestClock } from "effect"
import { EvalCase, LiveCassette } from "../src/index.js"

const caseWith = (extensions: Record<string, unknown>) => ({
  ...Either.getOrThrow(EvalCase.make({ id: "c1", input: "hi", scenario: "s", expected_function_calls: [] }, "cases.yaml")),
  extensions
})

const invalid = (value: unknown) => Either.getOrThrowWith(Either.flip(LiveCassette.decode(value, "c")), () => new Error("decoded"))

describe("LiveCassette", () => {
  it("reads a case's x-live-cassette: connections of steps, args defaulting to {}, durations as written", () => {
    const cassette = LiveCassette.ofCase(
      caseWith({
        "x-live-cassette": [
          [
            { calls: [{ name: "f" }], cancel_after: "250ms" },
            { text: "done", go_away: "1.5s" }
          ],
          [{ text: "again", calls: [{ name: "g", args: { a: 1 } }], drop_after_responses: 1011 }, { text: "bye" }]
        ]
      })
    )
    expect(cassette && Either.getOrThrow(cassette)).toEqual([
      [
        { calls: [{ name: "f", args: {} }], cancel_after: Duration.millis(250) },
        { text: "done", go_away: Duration.millis(1500) }
      ],
      [{ text: "again", calls: [{ name: "g", args: { a: 1 } }], drop_after_responses: 1011 }, { text: "bye" }]
    ])
    expect(LiveCassette.ofCase(caseWith({}))).toBeUndefined()
    expect(LiveCassette.steps(Either.getOrThrow(cassette!)).map((step) => step.text ?? step.calls?.[0]?.name)).toEqual(["f", "done", "again", "bye"])
  })

  it("writes durations back as milliseconds, and reads what it wrote", () => {
    const cassette: LiveCassette.LiveCassette = [[{ calls: [{ name: "f", args: {} }], cancel_after: Duration.seconds(2) }, { text: "ok", go_away: Duration.minutes(1) }]]
    const stored = LiveCassette.encode(cassette)
    expect(stored).toEqual([[{ calls: [{ name: "f", args: {} }], cancel_after: "2000ms" }, { text: "ok", go_away: "60000ms" }]])
    expect(LiveCassette.decode(stored, "c")).toEqual(Either.right(cassette))
  })

  it.each([
    ["not a list of connections", [{ text: "x" }], "[0]"],
    ["an empty cassette", [], undefined],
    ["an empty connection", [[]], "[0]"],
    ["a step with neither text nor calls", [[{}]], "[0][0]"],
    ["cancel_after without calls", [[{ text: "x", cancel_after: "1s" }]], "[0][0]"],
    ["drop_after_responses without calls", [[{ text: "x", drop_after_responses: 1011 }]], "[0][0]"],
    ["a duration without a unit", [[{ calls: [{ name: "f" }], cancel_after: "250" }]], "[0][0].cancel_after"],
    ["a close code no server sends", [[{ calls: [{ name: "f" }], drop_after_responses: 1005 }]], "[0][0].drop_after_responses"],
    ["a field it does not know", [[{ text: "x", goAway: "1s" }]], "[0][0].goAway"]
  ])("refuses %s, naming the place", (_, value, field) => {
    const error = invalid(value)
    expect(error._tag).toBe("CassetteError")
    expect(error.field).toBe(field)
    const ofCase = LiveCassette.ofCase(caseWith({ "x-live-cassette": value }))
    expect(ofCase !== undefined && Either.isLeft(ofCase) && ofCase.left.message).toMatch(/^cases\.yaml: case "c1": the cassette is invalid: x-live-cassette/)
  })

  it("says what a step lacks", () => {
    expect(invalid([[{ text: "x", cancel_after: "1s" }]]).reason).toBe("`cancel_after` cancels the step's calls: give `calls` with it")
    expect(invalid([[{ calls: [{ name: "f" }], cancel_after: "soon" }]]).reason).toContain("a duration such as 250ms, 1.5s or 2m")
  })
})

describe("LiveCassette.recorder", () => {
  const slow = Tool.make("slow", { description: "Takes a while", parameters: Schema.Struct({}), handler: () => Effect.as(Effect.sleep("10 seconds"), "done") })
  const fast = Tool.make("fast", { description: "At once", parameters: Schema.Struct({ n: Schema.Number }), handler: ({ n }) => Effect.succeed(n) })

  it.scoped("records each connection's steps: text up to a call or the turn's end, a cancellation's delay, goAway, a drop after the answers", () =>
    Effect.gen(function* () {
      const recorder = yield* LiveCassette.recorder
      const script: ScriptedLive.Script = (connection) =>
        connection === 1
          ? {
              onSetup: [{ resumption: "h1" }],
              onText: (text) =>
                text === "one"
                  ? [{ text: "Let me see. " }, { calls: [{ name: "slow" }] }, { cancel: ["call_1_0"], after: "300 millis" }]
                  : [{ text: "Two." }, { turnComplete: true }, { resumption: "h2" }, { goAway: "1 second" }],
              onIdle: () => [{ text: "Stopped." }, { turnComplete: true }, { resumption: "h1b" }]
            }
          : {
              onText: () => [{ calls: [{ name: "fast", args: { n: 3 } }] }],
              onToolResponses: () => [{ drop: 1011 }]
            }
      const layer = Layer.effect(
        LiveModel.LiveModel,
        Effect.map(LiveModel.LiveModel, (live) => recorder.wrap(live))
      ).pipe(Layer.provide(ScriptedLive.layer(script)))
      yield* Effect.gen(function* () {
        const session = yield* LiveAgent.session({ registry: Registry.unsafeMake(slow, fast) })
        const first = yield* Effect.fork(session.send("one"))
        yield* TestClock.adjust("300 millis")
        yield* first.await
        yield* session.send("two")
        yield* TestClock.adjust("1 second")
        const third = yield* Effect.fork(session.send("three"))
        yield* TestClock.adjust("1 second")
        yield* third.await
      }).pipe(Effect.provide(layer))
      expect(yield* recorder.cassette).toEqual([
        [
          { text: "Let me see. ", calls: [{ name: "slow", args: {} }], cancel_after: Duration.millis(300) },
          { text: "Stopped." },
          { text: "Two.", go_away: Duration.seconds(1) }
        ],
        [{ calls: [{ name: "fast", args: { n: 3 } }], drop_after_responses: 1011 }]
      ])
    }))

  it.effect("has no cassette while nothing was said", () =>
    Effect.gen(function* () {
      const recorder = yield* LiveCassette.recorder
      expect(yield* recorder.cassette).toBeUndefined()
    }))
})
