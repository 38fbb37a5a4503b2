import { LiveAgent, LiveModel, Registry, Retry, Tool } from "@agentfx/core"
import { Emulator, Fault, Policy } from "@agentfx/emulator"
import { describe, expect, it } from "@effect/vitest"
import { Cause, ConfigProvider, Context, Deferred, Effect, Exit, Layer, Option, Redacted, Schema, Stream } from "effect"
import * as GeminiLive from "../src/GeminiLive.js"
import { sentinel } from "./fixtures.js"

const devices: Record<string, { status: string }> = { "living room lamp": { status: "off" } }

const getDeviceStatus = Tool.make("get_device_status", {
  description: "The status of a device",
  parameters: Schema.Struct({ device_name: Schema.String }),
  handler: ({ device_name }) => Effect.succeed(devices[device_name] ?? { status: "unknown" })
})

/** Runs until interrupted; `started` says it began, `released` that its finalizer ran. */
const blocking = (started: Deferred.Deferred<void>, released: Deferred.Deferred<void>) =>
  Tool.make("slow_scan", {
    description: "A scan that takes a long time",
    parameters: Schema.Struct({}),
    handler: () => Effect.zipRight(Deferred.succeed(started, undefined), Effect.never).pipe(Effect.onInterrupt(() => Deferred.succeed(released, undefined)))
  })

const notify = Tool.nonBlocking(
  Tool.make("notify", { description: "Sends a notification", parameters: Schema.Struct({ text: Schema.String }), handler: () => Effect.succeed({ sent: true }) }),
  { scheduling: "silent" }
)

const registry = Registry.unsafeMake(getDeviceStatus, notify)

const quickReconnect = Retry.policy({ base: "10 millis", maxRetries: 3 })

/** The Gemini Live layer on `emulator`. */
const liveOn = (emulator: Emulator.Service, options: Partial<GeminiLive.Options> = {}) =>
  GeminiLive.layer({ apiKey: Redacted.make(emulator.apiKey), baseUrl: emulator.geminiBaseUrl, ...options })

const ask = (emulator: Emulator.Service, messages: ReadonlyArray<string>, options: { readonly registry?: Registry.Registry; readonly live?: Partial<GeminiLive.Options> } = {}) =>
  LiveAgent.run({ registry: options.registry ?? registry, messages, reconnect: quickReconnect }).pipe(Effect.provide(liveOn(emulator, options.live)))

describe("Gemini Live layer — the session through the real SDK and the emulator", () => {
  it.scopedLive("declares the tools (non-blocking ones with behavior), answers every call by id with an object, then hears the answer", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({
        policy: Policy.script([
          { calls: [{ name: "get_device_status", args: { device_name: "living room lamp" } }, { name: "notify", args: { text: "checked" } }, { name: "no_such_tool", args: {} }] },
          { text: "The living room lamp is off." }
        ])
      })
      const [turn] = yield* ask(emulator, ["Is the living room lamp on?"])
      expect(turn!.text).toBe("The living room lamp is off.")
      expect(turn!.calls.map((call) => [call.name, call.outcome._tag])).toEqual(
        expect.arrayContaining([["get_device_status", "Answered"], ["notify", "Answered"], ["no_such_tool", "Answered"]])
      )
      const [record] = yield* emulator.live
      const setup = (record!.setup as { tools: Array<{ functionDeclarations: Array<Record<string, unknown>> }> }).tools[0]!.functionDeclarations
      expect(setup.map((declaration) => [declaration.name, declaration.behavior])).toEqual([["get_device_status", undefined], ["notify", "NON_BLOCKING"]])
      expect(setup[0]!.parametersJsonSchema).toMatchObject({ type: "object", properties: { device_name: { type: "string" } } })
      const byName = new Map(record!.responses.map((response) => [response.name, response]))
      expect(byName.get("get_device_status")).toMatchObject({ response: { status: "off" } })
      expect(byName.get("get_device_status")!.scheduling).toBeUndefined()
      expect(byName.get("notify")).toMatchObject({ response: { sent: true }, scheduling: "SILENT" })
      expect(byName.get("no_such_tool")!.response).toMatchObject({ error: { type: "UnknownFunction" } })
      expect(record!.violations).toEqual([])
      expect(record!.received[1]).toEqual({ clientContent: { turns: [{ role: "user", parts: [{ text: "Is the living room lamp on?" }] }], turnComplete: true } })
    }))

  it.scopedLive("bad arguments go back to the model as an error response; a result that is not an object is wrapped", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({
        policy: Policy.script([{ calls: [{ name: "get_device_status", args: { device: 1 } }, { name: "echo", args: { text: "hi" } }] }, { text: "ok" }])
      })
      const echo = Tool.make("echo", { description: "Echoes", parameters: Schema.Struct({ text: Schema.String }), handler: ({ text }) => Effect.succeed(text) })
      yield* ask(emulator, ["go"], { registry: Registry.unsafeMake(getDeviceStatus, echo) })
      const responses = (yield* emulator.live)[0]!.responses
      expect(responses.find((response) => response.name === "get_device_status")!.response).toMatchObject({ error: { type: "InvalidArguments" } })
      expect(responses.find((response) => response.name === "echo")!.response).toEqual({ output: "hi" })
    }))

  it.scopedLive("a cancellation interrupts exactly the cancelled handler, and its response is never sent", () =>
    Effect.gen(function* () {
      const started = yield* Deferred.make<void>()
      const released = yield* Deferred.make<void>()
      const emulator = yield* Emulator.make({
        policy: Policy.script([
          Policy.withFaults({ calls: [{ name: "slow_scan", args: {} }, { name: "get_device_status", args: { device_name: "living room lamp" } }] }, Fault.cancelCalls("100 millis")),
          { text: "done" }
        ])
      })
      const [turn] = yield* ask(emulator, ["Scan."], { registry: Registry.unsafeMake(blocking(started, released), getDeviceStatus) })
      expect(yield* Deferred.isDone(released)).toBe(true)
      const outcomes = Object.fromEntries(turn!.calls.map((call) => [call.name, call.outcome._tag]))
      expect(outcomes).toEqual({ slow_scan: "Cancelled", get_device_status: "Answered" })
      const [record] = yield* emulator.live
      expect(record!.cancelled).toHaveLength(1)
      expect(record!.responses.map((response) => response.name)).toEqual(["get_device_status"])
      expect(record!.violations).toEqual([])
      expect(turn!.text).toBe("done")
    }))

  it.scopedLive("goAway, then a 1011 close: the session resumes with the last handle, and no call is sent or run twice", () =>
    Effect.gen(function* () {
      let runs = 0
      const counted = Tool.make("get_device_status", {
        description: "The status of a device",
        parameters: Schema.Struct({ device_name: Schema.String }),
        handler: () => Effect.sync(() => ({ status: "off", runs: ++runs }))
      })
      const emulator = yield* Emulator.make({
        policy: Policy.fromFunction((request) => {
          const models = request.transcript.filter((turn) => turn.role === "model").length
          if (models === 0) return { calls: [{ name: "get_device_status", args: { device_name: "living room lamp" } }] }
          if (models === 1) return Policy.withFaults({ text: "It is off." }, Fault.goAway("100 millis"))
          return { text: `Still here, after ${models} answers.` }
        })
      })
      const events: Array<string> = []
      const turns = yield* Effect.scoped(
        Effect.gen(function* () {
          const session = yield* LiveAgent.session({ registry: Registry.unsafeMake(counted), reconnect: quickReconnect })
          yield* Effect.forkScoped(Stream.runForEach(yield* session.subscribe, (event) => Effect.sync(() => events.push(event._tag))))
          const first = yield* session.send("Is the lamp on?")
          yield* emulator.awaitLive(2)
          const second = yield* session.send("And now?")
          return [first, second] as ReadonlyArray<LiveAgent.LiveTurn>
        })
      ).pipe(Effect.provide(liveOn(emulator)))
      expect(turns.map((turn) => turn.text)).toEqual(["It is off.", "Still here, after 2 answers."])
      expect(runs).toBe(1)
      const records = yield* emulator.live
      expect(records).toHaveLength(2)
      expect(records[1]!.resumedFrom).toMatch(/^live-handle-/)
      expect(records[1]!.responses).toEqual([])
      expect(events).toEqual(expect.arrayContaining(["GoAway", "Reconnecting", "Connected"]))
    }))

  it.scopedLive("a drop with 1011 after the tool responses: the session reconnects, the call is not run again", () =>
    Effect.gen(function* () {
      // Only the first request drops: the new connection starts without the lost turn, so its first request looks alike.
      let requests = 0
      const emulator = yield* Emulator.make({
        policy: Policy.fromFunction(() =>
          ++requests === 1 ? Policy.withFaults({ calls: [{ name: "get_device_status", args: { device_name: "living room lamp" } }] }, Fault.dropAfterResponses()) : { text: "Back." }
        )
      })
      const result = yield* Effect.scoped(
        Effect.gen(function* () {
          const session = yield* LiveAgent.session({ registry, reconnect: quickReconnect })
          const lost = yield* Effect.either(session.send("Lamp?"))
          yield* emulator.awaitLive(2)
          const again = yield* session.send("Hello again.")
          return { lost, again, calls: yield* session.calls }
        })
      ).pipe(Effect.provide(liveOn(emulator)))
      expect(result.lost).toMatchObject({ _tag: "Left", left: { _tag: "TurnLost" } })
      expect(result.again.text).toBe("Back.")
      expect(result.calls.map((call) => call.outcome._tag)).toEqual(["Answered"])
      const records = yield* emulator.live
      expect(records[0]!.closed).toMatchObject({ code: 1011, by: "server" })
      expect(records[1]!.responses).toEqual([])
    }))

  it.scopedLive("realtimeInput for the models that accept only it, and the output transcription with AUDIO", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({ policy: Policy.script([{ text: "hi" }, { text: "hi" }, { text: "hi" }, { text: "hi" }]) })
      yield* ask(emulator, ["hello"], { live: { model: "gemini-3.1-flash-live-preview" } })
      yield* ask(emulator, ["hello"], { live: { modality: "audio" } })
      // What is asked for wins over what the model's name suggests, either way.
      yield* ask(emulator, ["hello"], { live: { model: "gemini-3.1-flash-live-preview", textInput: "clientContent" } })
      yield* ask(emulator, ["hello"], { live: { textInput: "realtimeInput" } })
      const [flash31, audio, asClient, asRealtime] = yield* emulator.live
      expect(flash31!.received[1]).toEqual({ realtimeInput: { text: "hello" } })
      expect(asClient!.received[1]).toEqual({ clientContent: { turns: [{ role: "user", parts: [{ text: "hello" }] }], turnComplete: true } })
      expect(asRealtime!.received[1]).toEqual({ realtimeInput: { text: "hello" } })
      expect(audio!.setup).toMatchObject({ generationConfig: { responseModalities: ["AUDIO"] }, outputAudioTranscription: {} })
    }))

  it.scopedLive("the setup carries the session's system instruction, temperature and output limit, and nothing it was not given", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make()
      const connect = (setup: LiveModel.Setup, options: Partial<GeminiLive.Options> = {}) =>
        Effect.scoped(Effect.flatMap(LiveModel.LiveModel, (live) => live.connect(setup))).pipe(Effect.provide(liveOn(emulator, options)))
      yield* connect({ declarations: [], system: "Be brief.", temperature: 0.25, maxOutputTokens: 77 })
      yield* connect({ declarations: [], system: "" })
      yield* connect({ declarations: [], system: "Speak." }, { modality: "audio" })
      const [given, bare, audio] = yield* emulator.live
      expect(given!.setup).toEqual({
        model: "models/gemini-live-2.5-flash-preview",
        generationConfig: { temperature: 0.25, maxOutputTokens: 77, responseModalities: ["TEXT"] },
        systemInstruction: { role: "user", parts: [{ text: "Be brief." }] },
        sessionResumption: {}
      })
      // An empty system instruction is none; no tools key without declarations.
      expect(bare!.setup).toEqual({ model: "models/gemini-live-2.5-flash-preview", generationConfig: { responseModalities: ["TEXT"] }, sessionResumption: {} })
      expect(audio!.setup).toEqual({
        model: "models/gemini-live-2.5-flash-preview",
        generationConfig: { responseModalities: ["AUDIO"] },
        systemInstruction: { role: "user", parts: [{ text: "Speak." }] },
        sessionResumption: {},
        outputAudioTranscription: {}
      })
    }))
})

describe("Gemini Live layer — failures are typed errors, never hangs or crashes", () => {
  const connectWith = (emulator: Emulator.Service, options: Partial<GeminiLive.Options> = {}) =>
    Effect.scoped(Effect.flatMap(LiveModel.LiveModel, (live) => live.connect({ declarations: [] }))).pipe(Effect.provide(liveOn(emulator, options)))
  /** Connects (no declarations), runs `use` with the connection, and closes it with the scope. */
  const onConnection = <A, E>(emulator: Emulator.Service, use: (connection: LiveModel.Connection) => Effect.Effect<A, E>, options: Partial<GeminiLive.Options> = {}) =>
    Effect.scoped(Effect.flatMap(Effect.flatMap(LiveModel.LiveModel, (live) => live.connect({ declarations: [] })), use)).pipe(Effect.provide(liveOn(emulator, options)))
  /** Says "hi", then reads the events to their end. */
  const hiThenEvents = (connection: LiveModel.Connection) => Effect.zipRight(connection.sendText("hi"), Stream.runCollect(connection.events))

  it.scopedLive("a refused setup is InvalidRequest with the server's reason; a wrong key (closed 1007 \"API key not valid\") is Unauthorized and never shown", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make()
      yield* emulator.inject(Fault.refuseSetup(), { protocol: "gemini-live" })
      const refused = yield* Effect.flip(connectWith(emulator))
      expect(refused).toMatchObject({ _tag: "InvalidRequest", status: 1008 })
      expect(refused.message).toContain("is not found for API version")
      const wrongKey = yield* Effect.flip(connectWith(emulator, { apiKey: Redacted.make(sentinel) }))
      expect(wrongKey).toMatchObject({ _tag: "Unauthorized", status: 1007 })
      expect(JSON.stringify(wrongKey)).not.toContain(sentinel)
      expect(Cause.pretty(Cause.fail(wrongKey))).not.toContain(sentinel)
    }))

  it.scopedLive("the API version goes into the socket's URL: one the server does not serve is HTTP 404, InvalidRequest naming the URL", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make()
      const error = yield* Effect.flip(connectWith(emulator, { apiVersion: "v9" }))
      expect(error).toMatchObject({ _tag: "InvalidRequest", status: 404, message: "the Live endpoint refused the connection with HTTP 404: no Gemini Live endpoint at this URL" })
      yield* connectWith(emulator, { apiVersion: "v1alpha" })
      expect((yield* emulator.live).map((record) => record.path)).toEqual(["/ws/google.ai.generativelanguage.v1alpha.GenerativeService.BidiGenerateContent"])
    }))

  it.scopedLive("a declaration Gemini cannot take is InvalidRequest naming it, before any socket is opened", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make()
      const error = yield* Effect.flip(
        Effect.scoped(
          Effect.flatMap(LiveModel.LiveModel, (live) => live.connect({ declarations: [{ name: "shout", description: "Shouts", parameters: { type: "string" } }] }))
        ).pipe(Effect.provide(liveOn(emulator)))
      )
      expect(error).toMatchObject({ _tag: "InvalidRequest", message: 'function "shout" cannot be declared for Gemini: parameters must be an object schema, got "string"' })
      expect(yield* emulator.live).toEqual([])
    }))

  it.scopedLive("a server that never completes the setup is ModelTimeout naming connectTimeout (not turnTimeout), not a hang", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make()
      yield* emulator.inject(Fault.slowSetup("10 seconds"), { protocol: "gemini-live" })
      const error = yield* Effect.flip(connectWith(emulator, { connectTimeout: "150 millis" }))
      expect(error).toMatchObject({ _tag: "ModelTimeout", limit: "connect", message: "the live connection was not set up within 150ms (connectTimeout)" })
      // The half-open socket is not left behind: the client closed it.
      expect(yield* emulator.awaitLiveClosed(0)).toMatchObject({ by: "client" })
    }))

  it.scopedLive("nothing listening is Unavailable; a session whose server stays away ends with ReconnectFailed", () =>
    Effect.gen(function* () {
      const emulator = yield* Effect.scoped(Emulator.make())
      const refused = yield* Effect.flip(connectWith(emulator))
      expect(refused).toMatchObject({ _tag: "Unavailable" })
      // The socket's own error says why, for a person to act on.
      expect(refused.message).toMatch(/^the Live connection failed during setup: .*ECONNREFUSED/)
      const exit = yield* Effect.exit(ask(emulator, ["anyone?"]))
      expect(Exit.isFailure(exit) && Cause.squash(exit.cause)).toMatchObject({ _tag: "ReconnectFailed" })
    }))

  it.scopedLive("a frame that is not JSON ends the connection with MalformedResponse; the process lives on", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({ policy: Policy.script([Policy.withFaults({ text: "never seen" }, Fault.rawFrame("this is not JSON"))]) })
      const error = yield* Effect.flip(onConnection(emulator, hiThenEvents))
      expect(error).toMatchObject({ _tag: "MalformedResponse" })
      expect(error.message).toContain("not JSON")
      expect(yield* emulator.awaitLiveClosed(0)).toMatchObject({ by: "client" })
    }))

  it.scopedLive("a frame that is not JSON before setupComplete fails the connect itself with MalformedResponse", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make()
      yield* emulator.inject(Fault.frameBeforeSetup("this is not JSON"), { protocol: "gemini-live" })
      const error = yield* Effect.flip(connectWith(emulator))
      expect(error).toMatchObject({ _tag: "MalformedResponse" })
      expect(error.message).toContain("not JSON")
      expect(yield* emulator.awaitLiveClosed(0)).toMatchObject({ by: "client" })
    }))

  it.scopedLive("a text frame that is not UTF-8 ends the events with Closed, whose reason is the socket's error", () =>
    Effect.gen(function* () {
      // 0xff never occurs in UTF-8: the client's socket refuses the frame and closes (RFC 6455 §8.1), with no reason.
      const emulator = yield* Emulator.make({ policy: Policy.script([Policy.withFaults({ text: "never seen" }, Fault.rawFrame(new Uint8Array([0x7b, 0xff, 0x7d])))]) })
      const events = [...(yield* onConnection(emulator, hiThenEvents))]
      expect(events.at(-1)).toStrictEqual({ _tag: "Closed", code: 1006, reason: "Invalid WebSocket frame: invalid UTF-8 sequence" })
    }))

  it.scopedLive("a frame larger than maxResponseBytes ends the connection with MalformedResponse naming the limit", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({ policy: Policy.script([{ text: "x".repeat(4096) }]) })
      const error = yield* Effect.flip(onConnection(emulator, hiThenEvents, { maxResponseBytes: 1024 }))
      expect(error).toMatchObject({ _tag: "MalformedResponse", message: "the server sent a frame larger than the limit of 1024 bytes (maxResponseBytes)" })
      expect(yield* emulator.awaitLiveClosed(0)).toMatchObject({ by: "client" })
    }))

  it.scopedLive("sending after the connection closed is Unavailable; events end with Closed", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make()
      const outcome = yield* Effect.scoped(
        Effect.gen(function* () {
          const live = yield* LiveModel.LiveModel
          const connection = yield* live.connect({ declarations: [] })
          yield* emulator.closeLive(0, 1011, "bye")
          const events = yield* Stream.runCollect(connection.events)
          return { events: [...events], send: yield* Effect.flip(connection.sendText("late")) }
        })
      ).pipe(Effect.provide(liveOn(emulator)))
      expect(outcome.events[outcome.events.length - 1]).toEqual({ _tag: "Closed", code: 1011, reason: "bye" })
      // Refused before it reaches the socket, saying why.
      expect(outcome.send).toMatchObject({ _tag: "Unavailable", message: "the Live connection is closed: cannot send text" })
    }))

  it.scopedLive("a socket dropped without a close frame ends the events with Closed 1006 and no reason", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make()
      const events = [...(yield* onConnection(emulator, (connection) => Effect.zipRight(emulator.closeLive(0, 1006), Stream.runCollect(connection.events))))]
      expect(events.at(-1)).toStrictEqual({ _tag: "Closed", code: 1006, reason: "" })
    }))

  it.scopedLive("the end of the scope that connected closes the socket", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make()
      yield* Effect.scoped(Effect.flatMap(LiveModel.LiveModel, (live) => live.connect({ declarations: [] }))).pipe(Effect.provide(liveOn(emulator)))
      const closed = yield* emulator.awaitLiveClosed(0).pipe(Effect.timeoutFail({ duration: "5 seconds", onTimeout: () => new Error("the socket was left open") }))
      expect(closed).toMatchObject({ by: "client" })
    }))

  it.scopedLive("a frame of the wrong shape (one line naming the field), and a call without an id, each end the connection with MalformedResponse", () =>
    Effect.gen(function* () {
      const malformedBy = (frame: string) =>
        Effect.gen(function* () {
          const emulator = yield* Emulator.make({ policy: Policy.script([Policy.withFaults({ text: "never seen" }, Fault.rawFrame(frame))]) })
          const error = yield* Effect.flip(
            Effect.scoped(
              Effect.gen(function* () {
                const connection = yield* Effect.flatMap(LiveModel.LiveModel, (live) => live.connect({ declarations: [] }))
                yield* connection.sendText("hi")
                return yield* Stream.runDrain(connection.events)
              })
            ).pipe(Effect.provide(liveOn(emulator)))
          )
          expect(yield* emulator.awaitLiveClosed(0)).toMatchObject({ by: "client" })
          return error
        })
      const shape = yield* malformedBy(JSON.stringify({ toolCall: { functionCalls: [{ id: "c1", name: 3 }] } }))
      expect(shape).toMatchObject({ _tag: "MalformedResponse" })
      expect(shape.message).toBe("unexpected Live message shape: toolCall.functionCalls[0].name should be a string, got 3")
      expect(shape).toMatchObject({ details: "toolCall.functionCalls[0].name should be a string, got 3" })
      const noId = yield* malformedBy(JSON.stringify({ toolCall: { functionCalls: [{ name: "lamp", args: {} }] } }))
      expect(noId).toMatchObject({ _tag: "MalformedResponse", message: 'the server asked for "lamp" without an id, so it cannot be answered' })
    }))

  it.scopedLive("closed by the client: events end with Closed 1000, and each send after it says what could not be sent", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make()
      const outcome = yield* Effect.scoped(
        Effect.gen(function* () {
          const connection = yield* Effect.flatMap(LiveModel.LiveModel, (live) => live.connect({ declarations: [] }))
          yield* connection.close
          yield* connection.close
          const events = yield* Stream.runCollect(connection.events)
          const text = yield* Effect.flip(connection.sendText("late"))
          const responses = yield* Effect.flip(connection.sendToolResponses([{ id: "c1", name: "f", response: { ok: true } }]))
          return { events: [...events], text, responses }
        })
      ).pipe(Effect.provide(liveOn(emulator)))
      expect(outcome.events).toEqual([{ _tag: "Closed", code: 1000, reason: "closed by the client" }])
      expect(outcome.text).toMatchObject({ _tag: "Unavailable", message: "the Live connection is closed: cannot send text" })
      expect(outcome.responses).toMatchObject({ _tag: "Unavailable", message: "the Live connection is closed: cannot send tool responses" })
      expect(yield* emulator.awaitLiveClosed(0)).toMatchObject({ by: "client" })
    }))

  it.scopedLive("tool responses carry scheduling and willContinue exactly when given", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({
        policy: Policy.script([{ calls: [{ name: "notify", args: { text: "a" } }, { name: "get_device_status", args: { device_name: "lamp" } }] }, { text: "ok" }])
      })
      yield* Effect.scoped(
        Effect.gen(function* () {
          const connection = yield* Effect.flatMap(LiveModel.LiveModel, (live) => live.connect({ declarations: [] }))
          yield* connection.sendText("go")
          const calls = yield* connection.events.pipe(
            Stream.filterMap((event) => (event._tag === "ToolCall" ? Option.some(event.calls) : Option.none())),
            Stream.runHead,
            Effect.map(Option.getOrThrow)
          )
          const [notifyCall, statusCall] = calls
          yield* connection.sendToolResponses([
            { id: notifyCall!.id, name: "notify", response: { sent: true }, scheduling: "whenIdle", willContinue: true },
            { id: statusCall!.id, name: "get_device_status", response: { status: "off" } }
          ])
          // The next answer comes once the server has both responses.
          yield* connection.events.pipe(Stream.takeUntil((event) => event._tag === "TurnComplete"), Stream.runDrain)
        })
      ).pipe(Effect.provide(liveOn(emulator)))
      const [record] = yield* emulator.live
      const [notifyResponse, statusResponse] = record!.responses
      expect(notifyResponse).toMatchObject({ name: "notify", response: { sent: true }, scheduling: "WHEN_IDLE", willContinue: true })
      expect(statusResponse).toEqual({ id: expect.any(String), name: "get_device_status", response: { status: "off" } })
    }))

  it.effect("configuration: GEMINI_API_KEY (else GOOGLE_API_KEY) and GEMINI_LIVE_MODEL; a missing key names the variables", () =>
    Effect.gen(function* () {
      const withEnv = (env: Record<string, string>) => Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env))))
      const build = Effect.map(Layer.build(GeminiLive.layerConfig()), (context) => Context.get(context, LiveModel.LiveModel))
      const service = yield* Effect.scoped(build).pipe(withEnv({ GOOGLE_API_KEY: "k", GEMINI_LIVE_MODEL: "gemini-3.1-flash-live-preview" }))
      expect([service.provider, service.model]).toEqual(["gemini-live", "gemini-3.1-flash-live-preview"])
      const error = yield* Effect.flip(Effect.scoped(build)).pipe(withEnv({}))
      expect(String(error)).toContain("GEMINI_API_KEY")
      expect(String(error)).toContain("GOOGLE_API_KEY")
      const options = yield* GeminiLive.config.pipe(withEnv({ GEMINI_API_KEY: "k", GEMINI_BASE_URL: " http://127.0.0.1:9/ " }))
      expect([Redacted.value(options.apiKey), options.model, options.baseUrl]).toEqual(["k", GeminiLive.defaultModel, "http://127.0.0.1:9/"])
      expect((yield* GeminiLive.config.pipe(withEnv({ GEMINI_API_KEY: "k" }))).baseUrl).toBeUndefined()
      expect(String(yield* Effect.flip(GeminiLive.config.pipe(withEnv({ GEMINI_API_KEY: "k", GEMINI_BASE_URL: "ftp://x" }))))).toContain("GEMINI_BASE_URL must be an http:// or https:// URL")
    }))
})
