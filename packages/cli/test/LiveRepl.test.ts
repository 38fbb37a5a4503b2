import { Builtins, CliError, Io, LiveRepl } from "@agentfx/cli"
import { LiveModel, ModelError, Registry } from "@agentfx/core"
import { ScriptedLive } from "@agentfx/core/testing"
import type * as FileSystem from "@effect/platform/FileSystem"
import * as NodeContext from "@effect/platform-node/NodeContext"
import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as TestClock from "effect/TestClock"

const target = "scripted at nowhere"

const isLayer = (model: ScriptedLive.Script | Layer.Layer<LiveModel.LiveModel>): model is Layer.Layer<LiveModel.LiveModel> => Layer.isLayer(model)

/** What the person does: types a line (ahead of the prompt), or presses Ctrl-C once the terminal shows `interruptAt`. */
type Step = string | { readonly interruptAt: string }

/**
 * Runs the live chat on the TestClock against `script`, with `steps` taken and then the end of input; the clock moves
 * 100 ms at a time until the chat ends, so reconnect waits and the connect bound pass without real sleeps.
 */
const chat = (script: ScriptedLive.Script | Layer.Layer<LiveModel.LiveModel>, steps: ReadonlyArray<Step>, options: Partial<LiveRepl.Options> = {}) =>
  Effect.gen(function* () {
    const terminal = yield* Io.memory()
    const fiber = yield* Effect.fork(
      Effect.either(
        LiveRepl.run({
          registry: Registry.unsafeMake(...Builtins.tools({ root: ".", allowHosts: ["example.com"] })),
          autoApprove: false,
          startFailed: (error) => new CliError.RunFailed({ message: `the live session could not start — ${error._tag}: ${error.message}` }),
          target,
          connectTimeout: Duration.seconds(5),
          ...options
        }).pipe(Effect.provide(Layer.mergeAll(terminal.layer, isLayer(script) ? script : ScriptedLive.layer(script), NodeContext.layer)))
      )
    )
    const tick = Effect.zipRight(TestClock.adjust("100 millis"), Effect.promise(() => new Promise((resolve) => setImmediate(resolve))))
    for (const step of steps) {
      if (typeof step === "string") yield* terminal.feed(step)
      else {
        for (let waited = 0; !(yield* terminal.stdout).includes(step.interruptAt); waited++) {
          if (waited === 1000) return yield* Effect.dieMessage(`the terminal never showed ${step.interruptAt}`)
          yield* tick
        }
        yield* terminal.interrupt
      }
    }
    yield* terminal.end
    for (let step = 0; step < 1000; step++) {
      const done = fiber.unsafePoll()
      if (done !== null) {
        const result = yield* done
        return { result, stdout: yield* terminal.stdout, stderr: yield* terminal.stderr }
      }
      yield* tick
    }
    return yield* Effect.dieMessage("the chat did not end")
  })

const greeting = "agentfx live — /help for commands; Ctrl-C stops a turn; /exit or Ctrl-D quits.\n"
const connecting = `connecting to ${target}…\n`

/** `script`'s model, whose connections fail their first `times` texts with `Unavailable`, as if the connection dropped as each went out (the server drops it). */
const dropsAtSend = (script: ScriptedLive.ConnectionScript, times: number) => {
  const dropped: ScriptedLive.ConnectionScript = { ...script, onText: (text, situation) => (text === "drop" ? [{ drop: 1011, reason: "gone" }] : script.onText?.(text, situation) ?? []) }
  return Layer.effect(
    LiveModel.LiveModel,
    Effect.map(LiveModel.LiveModel, (live) => {
      let sent = 0
      return {
        ...live,
        connect: (setup: LiveModel.Setup) =>
          Effect.map(live.connect(setup), (connection) => ({
            ...connection,
            sendText: (text: string) =>
              sent++ < times
                ? Effect.zipRight(connection.sendText("drop"), Effect.fail(new ModelError.Unavailable({ message: "the connection dropped as the text went out" })))
                : connection.sendText(text)
          }))
      }
    })
  ).pipe(Layer.provide(ScriptedLive.layer(dropped)))
}

const answers = (text: string): ScriptedLive.ConnectionScript["onText"] => () => [{ text }, { turnComplete: true }]
const lost = (code: number): ScriptedLive.ConnectionScript["onText"] => () => [{ drop: code, reason: "gone" }]
const lostLine = (attempt: number) => `(connection lost — the connection closed with code 1011 (gone), code 1011; reconnecting, attempt ${attempt})`

describe("agentfx live's chat, on a scripted Live model", () => {
  it.scoped("a setup the server refuses ends the start at once with its own error: no attempt is said to have failed", () =>
    Effect.gen(function* () {
      const refused = yield* chat({ refuse: new ModelError.InvalidRequest({ message: "no such model" }) }, ["hello"])
      expect(refused).toStrictEqual({
        result: Either.left(new CliError.RunFailed({ message: "the live session could not start — InvalidRequest: no such model" })),
        stdout: "",
        stderr: connecting
      })
    }))

  it.scoped("attempts whose setup timed out are each said; the connect bound's error does not name a timeout as the last failure", () =>
    Effect.gen(function* () {
      const slow = yield* chat({ refuse: new ModelError.ModelTimeout({ after: Duration.seconds(2), limit: "connect" }) }, ["hello"])
      const attempt = (n: number) => `connecting to ${target}… attempt ${n} failed (ModelTimeout: the live connection was not set up within 2s (connectTimeout)); trying again\n`
      expect(slow).toStrictEqual({
        result: Either.left(new CliError.RunFailed({ message: "the live session could not start — ModelTimeout: the live connection was not set up within 5s (connectTimeout)" })),
        stdout: "",
        stderr: `${connecting}${[1, 2, 3, 4].map(attempt).join("")}`
      })
    }))

  it.scoped("attempts that find the server away are each said; the connect bound's error counts them, in the plural, and names the last failure", () =>
    Effect.gen(function* () {
      const away = yield* chat({ refuse: new ModelError.Unavailable({ message: "connection refused" }) }, ["hello"])
      const attempt = (n: number) => `connecting to ${target}… attempt ${n} failed (Unavailable: connection refused); trying again\n`
      expect(away).toStrictEqual({
        result: Either.left(
          new CliError.RunFailed({
            message: "the live session could not start — ModelTimeout: the live connection was not set up within 5s (connectTimeout); 4 attempts failed, the last with Unavailable: connection refused"
          })
        ),
        stdout: "",
        stderr: `${connecting}${[1, 2, 3, 4].map(attempt).join("")}`
      })
    }))

  it.scoped("a message lost with its connection is sent again, once, on the resumed one; a reconnect attempt that fails is told as the reconnect's, not as the start's", () =>
    Effect.gen(function* () {
      const resent = yield* chat(
        [{ onSetup: [{ resumption: "h1" }], onText: lost(1011) }, { refuse: new ModelError.Unavailable({ message: "down" }) }, { onText: answers("Here.") }],
        ["hello"]
      )
      expect(resent).toStrictEqual({
        result: Either.right(undefined),
        stdout: `${greeting}you> hello\nHere.\nyou> \n`,
        stderr: [connecting, `${lostLine(2)}\n`, "(connection lost — down; reconnecting, attempt 3)\n", "(reconnected: the session resumed on connection 2)\n"].join("")
      })
    }))

  it.scoped("a message lost twice with its connection (TurnLost), or twice as it went out (Unavailable): a note says to say it again, and the session goes on", () =>
    Effect.gen(function* () {
      // Both lose the message twice and reconnect twice; only the note of the lost message differs.
      const goesOn = (note: string) => ({
        result: Either.right(undefined),
        stdout: `${greeting}you> hello\nyou> again\nHere.\nyou> \n`,
        stderr: [connecting, `${lostLine(2)}\n`, "(reconnected: the session resumed on connection 2)\n", note, `${lostLine(3)}\n`, "(reconnected: the session resumed on connection 3)\n"].join("")
      })
      const twice = yield* chat([{ onSetup: [{ resumption: "h1" }], onText: lost(1011) }, { onSetup: [{ resumption: "h2" }], onText: lost(1011) }, { onText: answers("Here.") }], ["hello", "again"])
      expect(twice).toStrictEqual(goesOn("(turn 2 was lost with its connection (the connection closed with code 1011 (gone)); say it again if you want an answer)\n"))
      const unsent = yield* chat(dropsAtSend({ onSetup: [{ resumption: "h1" }], onText: answers("Here.") }, 2), ["hello", "again"])
      expect(unsent).toStrictEqual(goesOn("(the connection dropped as the text went out; say it again if you want an answer)\n"))
    }))

  it.scoped("a session the server ends is the command's end, naming the error", () =>
    Effect.gen(function* () {
      const ended = yield* chat({ onText: lost(1008) }, ["hello", "again"])
      expect(ended).toStrictEqual({
        result: Either.left(new CliError.RunFailed({ message: "the live session ended — LiveClosed: the live session was closed with code 1008: gone" })),
        stdout: `${greeting}you> hello\n`,
        stderr: connecting
      })
    }))

  it.scoped("a call that asks first is shown by its question alone, not announced as started too", () =>
    Effect.gen(function* () {
      const asked = yield* chat(
        { onText: () => [{ calls: [{ name: "fetch_url", args: { url: "https://example.com/" } }] }], onToolResponses: () => [{ text: "Not fetched." }, { turnComplete: true }] },
        ["fetch it"]
      )
      expect(asked).toStrictEqual({
        result: Either.right(undefined),
        stdout: [
          greeting,
          "you> fetch it\n",
          '→ fetch_url({"url":"https://example.com/"}) — allow? [y/N] \n',
          '← fetch_url failed: "fetch_url" was not approved: nobody could answer (the input ended) (0ms)\n',
          "Not fetched.\n",
          "you> \n"
        ].join(""),
        stderr: connecting
      })
    }))

  it.scoped("a change of the tools is a note on stderr, with the reconnect it makes, not a line of the conversation", () =>
    Effect.gen(function* () {
      const builtins = Builtins.tools({ root: ".", allowHosts: [] })
      let version = 0
      const source: Registry.Source<FileSystem.FileSystem> = { version: () => version, current: Effect.succeed(Registry.unsafeMake(...builtins.filter((tool) => tool.name !== "clock"))) }
      const changed = yield* chat(
        { onSetup: [{ resumption: "h1" }], onText: () => ((version = 1), [{ text: "Here." }, { turnComplete: true }, { resumption: "h2" }]) },
        ["hello", "again"],
        { registry: Registry.dynamic(Registry.unsafeMake(...builtins), source, 0) }
      )
      expect(changed).toStrictEqual({
        result: Either.right(undefined),
        stdout: `${greeting}you> hello\nHere.\nyou> again\nHere.\nyou> \n`,
        stderr: `${connecting}(the tools changed — removed clock; the session resumes on connection 2 to declare them)\n(reconnected: the session resumed on connection 2)\n`
      })
    }))

  it.scoped("a turn stopped with Ctrl-C: the model's answer to its stopped calls is shown before the next prompt, after turns that completed before it", () =>
    Effect.gen(function* () {
      const stopped = yield* chat(
        {
          onText: (text) => (text === "hello" ? [{ text: "Hi." }, { turnComplete: true }] : [{ calls: [{ name: "fetch_url", args: { url: "https://example.com/" } }] }]),
          // The model takes its time to answer the stopped call: the prompt waits for that answer.
          onToolResponses: () => [{ wait: "1 second" }, { text: "Stopped." }, { turnComplete: true }]
        },
        ["hello", "fetch it", { interruptAt: "allow? [y/N] " }]
      )
      expect(stopped).toStrictEqual({ result: Either.right(undefined), stdout: [
          greeting,
          "you> hello\nHi.\n",
          "you> fetch it\n",
          '→ fetch_url({"url":"https://example.com/"}) — allow? [y/N] ^C\n',
          '← fetch_url failed: "fetch_url" was not approved: the user cancelled with Ctrl-C (100ms)\n',
          "(stopped — the turn's calls were cancelled; the session goes on)\n",
          "Stopped.\n",
          "you> \n"
        ].join(""),
        stderr: connecting
      })
    }))
})
