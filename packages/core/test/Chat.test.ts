import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Either, Exit, Fiber, Schema, Stream, TestClock } from "effect"
import { Chat, ModelError, Registry, Retry, Tool, Transcript, Turn } from "../src/index.js"
import { Scripted } from "../src/testing.js"
import { add, registry } from "./fixtures.js"

describe("Chat", () => {
  it.effect("successive messages share one transcript", () =>
    Effect.gen(function* () {
      const chat = yield* Chat.make({ registry, system: "s" })
      const first = yield* chat.send("2+2?")
      const second = yield* chat.send("and 3+3?")
      expect([first.text, second.text]).toEqual(["4", "6"])
      const transcript = yield* chat.transcript
      expect(transcript.map((t) => t.role)).toEqual(["user", "model", "user", "model", "user", "model", "user", "model"])
      const requests = yield* (yield* Scripted.ScriptedModel).requests
      expect(requests[2]!.transcript.slice(0, 4)).toEqual(transcript.slice(0, 4))
    }).pipe(
      Effect.provide(Scripted.layer([Scripted.call("add", { a: 2, b: 2 }), Scripted.text("4"), Scripted.call("add", { a: 3, b: 3 }), Scripted.text("6")]))
    ))

  it.effect("export and import continue exactly where the session stopped, even at maxTurns", () =>
    Effect.gen(function* () {
      const chat = yield* Chat.make({ registry, system: "keep going", maxTurns: 1 })
      const stopped = yield* chat.send("add things")
      expect(stopped.stopReason).toEqual({ _tag: "MaxTurns", maxTurns: 1 })
      const saved = yield* chat.export
      const restored = yield* Chat.fromJson(saved, { registry, maxTurns: 5 })
      expect(yield* restored.transcript).toEqual(yield* chat.transcript)
      const resumed = yield* restored.resume
      expect(resumed.text).toBe("all added")
      const requests = yield* (yield* Scripted.ScriptedModel).requests
      expect(requests[1]!.system).toBe("keep going")
      expect(requests[1]!.transcript).toEqual(yield* chat.transcript)
    }).pipe(Effect.provide(Scripted.layer([Scripted.call("add", { a: 1, b: 1 }), Scripted.text("all added")]))))

  it.effect("a corrupt or invalid saved session is a typed error", () =>
    Effect.gen(function* () {
      const notJson = yield* Effect.flip(Chat.fromJson("{oops", { registry }))
      expect(notJson._tag).toBe("SessionDecodeError")
      const broken = JSON.stringify({
        version: 1,
        transcript: [Turn.user("hi"), { role: "model", parts: [{ _tag: "FunctionCall", id: "a", name: "add", args: {} }] }]
      })
      const invalid = yield* Effect.flip(Chat.fromJson(broken, { registry }))
      expect(invalid).toMatchObject({ _tag: "TranscriptViolation", reason: "1 calls are unanswered" })
    }))

  it.effect("over a dynamic registry, a later message sees a tool its source added since the chat began", () =>
    Effect.gen(function* () {
      const echo = (name: string) => Tool.make(name, { description: "", parameters: Schema.Struct({}), handler: () => Effect.succeed(name) })
      const state = { tools: [echo("first")], version: 0 }
      const source: Registry.Source = { version: () => state.version, current: Effect.sync(() => Registry.unsafeMake(...state.tools)) }
      const chat = yield* Chat.make({ registry: Registry.dynamic(Registry.unsafeMake(...state.tools), source) })
      yield* chat.send("one")
      state.tools = [...state.tools, echo("second")]
      state.version++
      const second = yield* chat.send("two")
      expect(second.calls.map((c) => Either.getOrNull(c.result))).toEqual(["second"])
      const requests = yield* (yield* Scripted.ScriptedModel).requests
      expect(requests.map((r) => r.declarations.map((d) => d.name))).toEqual([["first"], ["first", "second"], ["first", "second"]])
    }).pipe(Effect.provide(Scripted.layer([Scripted.text("hi"), Scripted.call("second", {}), Scripted.text("done")]))))

  it.effect("system instruction and tools can change between messages", () =>
    Effect.gen(function* () {
      const chat = yield* Chat.make({ registry: Registry.unsafeMake(add), system: "first" })
      yield* chat.send("one")
      const echo = Tool.make("echo", { description: "", parameters: Schema.Struct({ s: Schema.String }), handler: ({ s }) => Effect.succeed(s) })
      yield* chat.update({ system: "second", registry: Registry.unsafeMake(echo) })
      yield* chat.send("two")
      const requests = yield* (yield* Scripted.ScriptedModel).requests
      expect(requests.map((r) => [r.system, r.declarations.map((d) => d.name)])).toEqual([
        ["first", ["add"]],
        ["second", ["echo"]]
      ])
    }).pipe(Effect.provide(Scripted.layer([Scripted.text("a"), Scripted.text("b")]))))

  it.effect("a message that fails keeps every answered turn; the session goes on", () =>
    Effect.gen(function* () {
      const chat = yield* Chat.make({ registry, retry: Retry.never })
      const error = yield* Effect.flip(chat.send("go"))
      expect(error._tag).toBe("Overloaded")
      const kept = yield* chat.transcript
      expect(kept.map((t) => t.role)).toEqual(["user", "model", "user"])
      expect(Either.isRight(Transcript.validate(kept))).toBe(true)
      const next = yield* chat.resume
      expect(next.text).toBe("recovered")
    }).pipe(
      Effect.provide(Scripted.layer([Scripted.call("add", { a: 1, b: 2 }), { error: new ModelError.Overloaded({ message: "busy", status: 503 }) }, Scripted.text("recovered")]))
    ))

  it.effect("a message interrupted (Ctrl-C) before any answer leaves no trace; the session goes on", () =>
    Effect.gen(function* () {
      const chat = yield* Chat.make({ registry })
      yield* chat.send("first")
      const fiber = yield* Effect.fork(chat.send("slow one"))
      yield* TestClock.adjust("10 millis")
      const exit = yield* Fiber.interrupt(fiber)
      expect(Exit.isInterrupted(exit)).toBe(true)
      expect((yield* chat.transcript).map(Turn.text)).toEqual(["first", "one"])
      const next = yield* chat.send("again")
      expect(next.text).toBe("fast")
      const requests = yield* (yield* Scripted.ScriptedModel).requests
      expect(requests[2]!.transcript.map(Turn.text)).toEqual(["first", "one", "again"])
    }).pipe(Effect.provide(Scripted.layer([Scripted.text("one"), { text: "never", delay: "1 hour" }, Scripted.text("fast")]))))

  it.effect("resuming a session whose last turn is the model's answer is InvalidRequest, and nothing is sent", () =>
    Effect.gen(function* () {
      const chat = yield* Chat.make({ registry })
      yield* chat.send("hi")
      const error = yield* Effect.flip(chat.resume)
      expect(error).toMatchObject({ _tag: "InvalidRequest", message: "nothing to continue: the transcript ends with the model's answer; send a new message" })
      expect(yield* (yield* Scripted.ScriptedModel).requests).toHaveLength(1)
    }).pipe(Effect.provide(Scripted.layer([Scripted.text("hello")]))))

  it.effect("a restored session and a fresh scripted model never reuse a call id", () =>
    Effect.gen(function* () {
      const saved = yield* Effect.gen(function* () {
        const chat = yield* Chat.make({ registry })
        yield* chat.send("add")
        return yield* chat.export
      }).pipe(Effect.provide(Scripted.layer([Scripted.call("add", { a: 1, b: 1 }), Scripted.text("2")])))
      const restored = yield* Chat.fromJson(saved, { registry })
      const result = yield* restored.send("again").pipe(Effect.provide(Scripted.layer([Scripted.call("add", { a: 2, b: 2 }), Scripted.text("4")])))
      expect(result.text).toBe("4")
      expect(result.calls.map((c) => c.id)).toEqual(["call_0_0_2"])
    }))

  it.effect("setHistory validates what it is given", () =>
    Effect.gen(function* () {
      const chat = yield* Chat.make({ registry })
      const error = yield* Effect.flip(chat.setHistory([{ role: "user", parts: [{ _tag: "FunctionResponse", id: "x", name: "f", response: {}, isError: false }] }]))
      expect(error._tag).toBe("TranscriptViolation")
      yield* chat.setHistory([Turn.user("hello"), Turn.model("hi")])
      expect(yield* chat.transcript).toHaveLength(2)
    }))

  it.effect("stream sends a message as events and keeps its transcript, like send", () =>
    Effect.gen(function* () {
      const chat = yield* Chat.make({ registry, system: "s" })
      const events = yield* Stream.runCollect(chat.stream("2+2?"))
      expect(Chunk.toReadonlyArray(events).map((event) => event._tag).at(-1)).toBe("Done")
      expect((yield* chat.transcript).map(Turn.text)).toEqual(["2+2?", "", "", "4"])
      const next = yield* chat.send("thanks")
      expect(next.text).toBe("bye")
      const requests = yield* (yield* Scripted.ScriptedModel).requests
      expect(requests.map((r) => [r.system, r.transcript.length])).toEqual([["s", 1], ["s", 3], ["s", 5]])
    }).pipe(Effect.provide(Scripted.layer([Scripted.call("add", { a: 2, b: 2 }), Scripted.text("4"), Scripted.text("bye")]))))

  it.effect("one message at a time: a send or a stream waits for the one before it, and sees its answer", () =>
    Effect.gen(function* () {
      const chat = yield* Chat.make({ registry })
      const first = yield* Effect.fork(chat.send("one"))
      yield* TestClock.adjust("10 millis")
      const second = yield* Effect.fork(Stream.runDrain(chat.stream("two")))
      yield* TestClock.adjust("10 millis")
      const third = yield* Effect.fork(chat.send("three"))
      yield* TestClock.adjust("10 millis")
      const history = yield* Effect.fork(chat.setHistory([Turn.user("reset"), Turn.model("ok")]))
      yield* TestClock.adjust("970 millis")
      expect((yield* chat.transcript).map(Turn.text)).toEqual(["one", "1"])
      yield* TestClock.adjust("1 second")
      yield* TestClock.adjust("1 second")
      yield* Fiber.join(first)
      yield* Fiber.join(second)
      yield* Fiber.join(third)
      yield* Fiber.join(history)
      const requests = yield* (yield* Scripted.ScriptedModel).requests
      expect(requests.map((r) => r.transcript.map(Turn.text))).toEqual([["one"], ["one", "1", "two"], ["one", "1", "two", "2", "three"]])
      expect((yield* chat.transcript).map(Turn.text)).toEqual(["reset", "ok"])
    }).pipe(
      Effect.provide(Scripted.layer([{ text: "1", delay: "1 second" }, { text: "2", delay: "1 second" }, { text: "3", delay: "1 second" }]))
    ))

  it.effect("update changes only what it names: options stay, system can be removed", () =>
    Effect.gen(function* () {
      const chat = yield* Chat.make({ registry: Registry.unsafeMake(add), system: "first", maxTurns: 1 })
      yield* chat.update({})
      const stopped = yield* chat.send("one")
      expect(stopped.stopReason).toEqual({ _tag: "MaxTurns", maxTurns: 1 })
      yield* chat.update({ options: { maxTurns: 5 } })
      yield* chat.resume
      yield* chat.update({ system: undefined })
      yield* chat.send("two")
      const requests = yield* (yield* Scripted.ScriptedModel).requests
      expect(requests.map((r) => [r.system, r.declarations.map((d) => d.name)])).toEqual([
        ["first", ["add"]],
        ["first", ["add"]],
        [undefined, ["add"]]
      ])
      expect(JSON.parse(yield* chat.export)).not.toHaveProperty("system")
    }).pipe(Effect.provide(Scripted.layer([Scripted.call("add", { a: 1, b: 1 }), Scripted.text("2"), Scripted.text("b")]))))

  it.effect("export is version 1 with the system and transcript; fromJson prefers the system it is given", () =>
    Effect.gen(function* () {
      const history = [Turn.user("hello"), Turn.model("hi")]
      const chat = yield* Chat.make({ registry, system: "saved", history })
      const saved = yield* chat.export
      expect(JSON.parse(saved)).toEqual({ version: 1, system: "saved", transcript: JSON.parse(JSON.stringify(history)) })
      const kept = yield* Chat.fromJson(saved, { registry })
      const replaced = yield* Chat.fromJson(saved, { registry, system: "given" })
      yield* kept.send("a")
      yield* replaced.send("b")
      const requests = yield* (yield* Scripted.ScriptedModel).requests
      expect(requests.map((r) => [r.system, r.transcript.map(Turn.text)])).toEqual([
        ["saved", ["hello", "hi", "a"]],
        ["given", ["hello", "hi", "b"]]
      ])
      const wrongVersion = yield* Effect.flip(Chat.fromJson(JSON.stringify({ version: 2, transcript: [] }), { registry }))
      expect(wrongVersion).toBeInstanceOf(Chat.SessionDecodeError)
      expect(wrongVersion.message).toContain("version")
    }).pipe(Effect.provide(Scripted.layer([Scripted.text("x"), Scripted.text("y")]))))

  it.effect("make refuses an invalid history", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(Chat.make({ registry, history: [{ role: "user", parts: [{ _tag: "FunctionResponse", id: "x", name: "f", response: {}, isError: false }] }] }))
      expect(error._tag).toBe("TranscriptViolation")
    }))
})
