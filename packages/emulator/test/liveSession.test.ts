/**
 * A Gemini Live session exactly as a client reads it off the WebSocket: every server frame, field by field and in
 * order (a test ends with a frame the server always refuses, so the list it checks is the whole of what was sent),
 * each close with its code and reason, and the neutral request the policy hears. Both sides of each boundary: calls
 * answered and not, blocking and NON_BLOCKING, a response's last one and not, a turn waiting and not. The frames
 * themselves are read in `decodeFrame`, checked here without a socket.
 */
import { ModelError, Turn } from "@agentfx/core"
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Duration, Effect, Either } from "effect"
import type { Scope } from "effect"
import type { Socket } from "node:net"
import { WebSocket } from "ws"
import { Emulator, Fault, Policy } from "../src/index.js"
import { decodeFrame } from "../src/internal/live/wire.js"

interface Closed {
  readonly code: number
  readonly reason: string
}

/** A raw client: what it sent is JSON unless said otherwise; what it got, parsed (a binary frame as its hex). */
interface Client {
  readonly send: (frame: unknown) => void
  readonly sendText: (text: string, binary: boolean) => void
  readonly close: (code: number, reason: string) => void
  readonly sendBytes: (data: Buffer, binary: boolean) => void
  /** Sends one text message in fragments, one for each part. */
  readonly sendFragments: (parts: ReadonlyArray<string>) => void
  /** Writes bytes on the connection as they are, outside the client's framing. */
  readonly sendRawFrame: (bytes: Buffer) => void
  /** The frames once there are `count` of them (fails if the server closes first). */
  readonly received: (count: number) => Effect.Effect<ReadonlyArray<unknown>>
  readonly closed: Effect.Effect<Closed>
  /** Sends a frame every server refuses and returns every frame the server sent before it closed. */
  readonly finish: Effect.Effect<ReadonlyArray<unknown>>
}

const emptyMessage = "Invalid JSON payload received. A client message must hold one of setup, clientContent, realtimeInput, toolResponse."

const open = (emulator: Emulator.Service): Effect.Effect<Client, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.promise(
      () =>
        new Promise<{ readonly ws: WebSocket; readonly client: Client }>((resolve) => {
          const ws = new WebSocket(`${emulator.url.replace("http", "ws")}/ws/google.ai.generativelanguage.v1beta.GenerativeService.BidiGenerateContent?key=${emulator.apiKey}`)
          const frames: Array<unknown> = []
          const waiters = new Set<() => void>()
          let closedWith: Closed | undefined
          ws.on("message", (data: Buffer, binary) => {
            frames.push(binary ? { binary: data.toString("hex") } : JSON.parse(data.toString("utf8")))
            for (const waiter of [...waiters]) waiter()
          })
          // The server's close may cut a frame still going out: the socket reports it, then closes.
          ws.on("error", () => {})
          ws.on("close", (code, reason) => {
            closedWith = { code, reason: reason.toString("utf8") }
            for (const waiter of [...waiters]) waiter()
          })
          const wait = <A>(ready: () => A | undefined, failed: () => Error | undefined) =>
            new Promise<A>((done, fail) => {
              const check = () => {
                const value = ready()
                const error = value === undefined ? failed() : undefined
                if (value === undefined && error === undefined) return
                waiters.delete(check)
                if (error !== undefined) fail(error)
                else done(value!)
              }
              waiters.add(check)
              check()
            })
          const closed = Effect.promise(() => wait(() => closedWith, () => undefined))
          const client: Client = {
            send: (frame) => ws.send(JSON.stringify(frame)),
            sendText: (text, binary) => ws.send(Buffer.from(text, "utf8"), { binary }),
            close: (code, reason) => ws.close(code, reason),
            sendBytes: (data, binary) => ws.send(data, { binary }),
            sendFragments: (parts) => parts.forEach((part, i) => ws.send(part, { fin: i === parts.length - 1 })),
            sendRawFrame: (bytes) => (ws as unknown as { readonly _socket: Socket })._socket.write(bytes),
            received: (count) =>
              Effect.promise(() =>
                wait(
                  () => (frames.length >= count ? [...frames] : undefined),
                  () => (closedWith === undefined ? undefined : new Error(`closed ${closedWith.code} (${closedWith.reason}) after ${JSON.stringify(frames)}`))
                )
              ),
            closed,
            finish: Effect.gen(function* () {
              ws.send(JSON.stringify({}))
              expect(yield* closed).toEqual({ code: 1007, reason: emptyMessage })
              return [...frames]
            })
          }
          ws.on("open", () => resolve({ ws, client }))
        })
    ),
    ({ ws }) => Effect.sync(() => ws.terminate())
  ).pipe(Effect.map(({ client }) => client))

/** A client whose setup is complete. */
const setUp = (emulator: Emulator.Service, setup: Record<string, unknown> = {}) =>
  Effect.gen(function* () {
    const client = yield* open(emulator)
    client.send({ setup: { model: "models/m", ...setup } })
    yield* client.received(1)
    return client
  })

const ask = (text: string) => ({ clientContent: { turns: [{ role: "user", parts: [{ text }] }], turnComplete: true } })
const setupComplete = { setupComplete: {} }
const words = (...texts: ReadonlyArray<string>) => texts.map((text) => ({ serverContent: { modelTurn: { role: "model", parts: [{ text }] } } }))
const generationComplete = { serverContent: { generationComplete: true } }
const turnComplete = (usage?: readonly [number, number, number]) =>
  usage === undefined
    ? { serverContent: { turnComplete: true } }
    : { serverContent: { turnComplete: true }, usageMetadata: { promptTokenCount: usage[0], responseTokenCount: usage[1], totalTokenCount: usage[2] } }
const handle = (n: number) => ({ sessionResumptionUpdate: { newHandle: `live-handle-${n}`, resumable: true } })
const noHandle = { sessionResumptionUpdate: { newHandle: "", resumable: false } }
const interrupted = { serverContent: { interrupted: true } }
const toolCall = (...calls: ReadonlyArray<readonly [string, string, Record<string, unknown>]>) => ({
  toolCall: { functionCalls: calls.map(([id, name, args]) => ({ id, name, args })) }
})
const usage = (input: number, output: number, total: number) => ({ usage: { inputTokens: input, outputTokens: output, totalTokens: total } })

const cancelledResponse = (id: string, name: string) => ({
  _tag: "FunctionResponse",
  id,
  name,
  response: { error: { type: "Cancelled", message: "the call was cancelled before it was answered" } },
  isError: true
})
const answered = (id: string, name: string, response: Record<string, unknown>, isError = false) => ({ _tag: "FunctionResponse", id, name, response, isError })

const blocking = (...names: ReadonlyArray<string>) => names.map((name) => ({ name, description: name }))
const nonBlocking = (...names: ReadonlyArray<string>) => names.map((name) => ({ name, description: name, behavior: "NON_BLOCKING" }))
const toolsOf = (...declarations: ReadonlyArray<Record<string, unknown>>) => ({ tools: [{ functionDeclarations: declarations }] })

/** A policy that records each request and answers from `steps` in order. */
const recorded = (...steps: ReadonlyArray<Policy.Reply>) => {
  const requests: Array<Policy.Request> = []
  const policy = Policy.fromFunction((request) => {
    requests.push(request)
    return steps[requests.length - 1] ?? { text: "past the script" }
  })
  return { requests, policy }
}

describe("a Live session's frames, exactly", () => {
  it.scoped("a text turn: setupComplete, the words, generationComplete, turnComplete with usage, a resumable handle; the policy hears the setup", () =>
    Effect.gen(function* () {
      const { policy, requests } = recorded({ text: "The lamp is off.", ...usage(3, 4, 9) }, { text: "Yes.", ...usage(5, 1, 6) })
      const emulator = yield* Emulator.make({ policy })
      const setup = { systemInstruction: { parts: [{ text: "Be brief." }] }, ...toolsOf(...blocking("lamp")), sessionResumption: {} }
      const client = yield* setUp(emulator, setup)
      client.send(ask("Is the lamp on?"))
      yield* client.received(8)
      client.send({ realtimeInput: { text: "Sure?" } })
      yield* client.received(12)
      const frames = yield* client.finish
      expect(frames).toStrictEqual([
        setupComplete,
        ...words("The ", "lamp ", "is ", "off."),
        generationComplete,
        turnComplete([3, 4, 9]),
        handle(1),
        ...words("Yes."),
        generationComplete,
        turnComplete([5, 1, 6]),
        handle(2)
      ])
      expect(requests).toHaveLength(2)
      const [first, second] = requests
      expect({ ...first!, declarations: first!.declarations.map((declaration) => declaration.name) }).toStrictEqual({
        protocol: "gemini-live",
        flavour: "gemini",
        index: 0,
        model: "m",
        stream: true,
        system: "Be brief.",
        transcript: [Turn.user("Is the lamp on?")],
        declarations: ["lamp"],
        toolChoice: undefined,
        output: undefined
      })
      expect(second!.index).toBe(1)
      expect(second!.transcript).toEqual([Turn.user("Is the lamp on?"), { role: "model", parts: [{ _tag: "Text", text: "The lamp is off." }] }, Turn.user("Sure?")])
      const [record] = yield* emulator.live
      expect(record!.received).toStrictEqual([{ setup: { model: "models/m", ...setup } }, ask("Is the lamp on?"), { realtimeInput: { text: "Sure?" } }, {}])
      expect(record!.sent).toStrictEqual(frames)
      expect(record!.setup).toStrictEqual({ model: "models/m", ...setup })
      expect(record!.model).toBe("m")
    }))

  it.scoped("without sessionResumption in the setup no handle frame is sent, neither after a turn nor while calls are outstanding", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({ policy: Policy.script([{ calls: [{ name: "lamp", args: { room: "hall" } }], ...usage(1, 2, 3) }, { text: "Done.", ...usage(4, 1, 5) }]) })
      const client = yield* setUp(emulator, toolsOf(...blocking("lamp")))
      client.send(ask("Check."))
      yield* client.received(2)
      client.send({ toolResponse: { functionResponses: [{ id: "call_0_0", name: "lamp", response: { on: false } }] } })
      yield* client.received(5)
      expect(yield* client.finish).toStrictEqual([setupComplete, toolCall(["call_0_0", "lamp", { room: "hall" }]), ...words("Done."), generationComplete, turnComplete([4, 1, 5])])
    }))

  it.scoped("blocking calls: the toolCall, an empty handle until every call is answered, then the next turn with the responses in call order", () =>
    Effect.gen(function* () {
      const { policy, requests } = recorded({ calls: [{ name: "a", args: { n: 1 } }, { name: "b", args: {} }], ...usage(1, 2, 3) }, { text: "Both.", ...usage(7, 1, 8) })
      const emulator = yield* Emulator.make({ policy })
      const client = yield* setUp(emulator, { ...toolsOf(...blocking("a", "b")), sessionResumption: {} })
      client.send(ask("Go."))
      yield* client.received(3)
      client.send({ toolResponse: { functionResponses: [{ id: "call_0_1", name: "b", response: { error: { message: "no" } } }] } })
      client.send({ toolResponse: { functionResponses: [{ id: "call_0_0", name: "a", response: { ok: true }, scheduling: "WHEN_IDLE", willContinue: false }] } })
      yield* client.received(7)
      expect(yield* client.finish).toStrictEqual([
        setupComplete,
        toolCall(["call_0_0", "a", { n: 1 }], ["call_0_1", "b", {}]),
        noHandle,
        ...words("Both."),
        generationComplete,
        turnComplete([7, 1, 8]),
        handle(1)
      ])
      expect(requests[1]!.transcript[2]).toEqual({ role: "user", parts: [answered("call_0_0", "a", { ok: true }), answered("call_0_1", "b", { error: { message: "no" } }, true)] })
      const [record] = yield* emulator.live
      expect(record!.responses).toStrictEqual([
        { id: "call_0_1", name: "b", response: { error: { message: "no" } } },
        { id: "call_0_0", name: "a", response: { ok: true }, scheduling: "WHEN_IDLE", willContinue: false }
      ])
      expect(record!.violations).toStrictEqual([])
      expect(record!.cancelled).toStrictEqual([])
    }))

  it.scoped("an answer given twice, while the turn waits or after it ended, is a violation, not a close; a response without a name is recorded with an empty one", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({ policy: Policy.script([{ calls: [{ name: "a", args: {} }, { name: "b", args: {} }] }, { text: "ok" }, { text: "again" }]) })
      const client = yield* setUp(emulator, toolsOf(...blocking("a", "b")))
      client.send(ask("Go."))
      yield* client.received(2)
      client.send({ toolResponse: { functionResponses: [{ id: "call_0_0", response: { n: 1 } }, { id: "call_0_0", name: "a", response: { n: 2 } }] } })
      client.send({ toolResponse: { functionResponses: [{ id: "call_0_1", name: "b", response: {} }] } })
      yield* client.received(5)
      client.send({ toolResponse: { functionResponses: [{ id: "call_0_1", name: "b", response: {} }] } })
      client.send(ask("More."))
      yield* client.received(8)
      expect(yield* client.finish).toHaveLength(8)
      const [record] = yield* emulator.live
      expect(record!.violations).toStrictEqual(['the call "call_0_0" was answered twice', 'the call "call_0_1" was answered twice'])
      expect(record!.responses.map((response) => response.name)).toStrictEqual(["", "a", "b", "b"])
    }))

  it.scoped("new user content while the model waits cancels its unanswered calls (not the NON_BLOCKING ones) and interrupts it; the model hears both", () =>
    Effect.gen(function* () {
      const { policy, requests } = recorded(
        { calls: [{ name: "a", args: {} }, { name: "b", args: {} }, { name: "w", args: {} }], ...usage(1, 1, 2) },
        { text: "Fine.", ...usage(2, 1, 3) },
        { text: "Seen.", ...usage(3, 1, 4) }
      )
      const emulator = yield* Emulator.make({ policy })
      const client = yield* setUp(emulator, { ...toolsOf(...blocking("a", "b"), ...nonBlocking("w")), sessionResumption: {} })
      client.send(ask("Go."))
      yield* client.received(3)
      client.send({ toolResponse: { functionResponses: [{ id: "call_0_0", name: "a", response: { done: 1 } }] } })
      client.send(ask("Never mind."))
      yield* client.received(9)
      // The NON_BLOCKING call still runs: the handle stays empty; its last response is a turn of its own.
      client.send({ toolResponse: { functionResponses: [{ id: "call_0_2", name: "w", response: { seen: true } }] } })
      yield* client.received(13)
      expect(yield* client.finish).toStrictEqual([
        setupComplete,
        toolCall(["call_0_0", "a", {}], ["call_0_1", "b", {}], ["call_0_2", "w", {}]),
        noHandle,
        { toolCallCancellation: { ids: ["call_0_1"] } },
        interrupted,
        ...words("Fine."),
        generationComplete,
        turnComplete([2, 1, 3]),
        noHandle,
        ...words("Seen."),
        generationComplete,
        turnComplete([3, 1, 4]),
        handle(1)
      ])
      expect(requests[1]!.transcript.slice(2)).toEqual([
        { role: "user", parts: [answered("call_0_0", "a", { done: 1 }), cancelledResponse("call_0_1", "b")] },
        Turn.user("Never mind.")
      ])
      expect(requests[2]!.transcript.at(-1)).toEqual({ role: "user", parts: [answered("call_0_2", "w", { seen: true })] })
      expect((yield* emulator.live)[0]!.cancelled).toStrictEqual(["call_0_1"])
    }))

  it.scoped("while the model waits, content that adds no turn (turnComplete alone, audio) interrupts nothing", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({ policy: Policy.script([{ calls: [{ name: "a", args: {} }] }, { text: "Done.", ...usage(1, 1, 2) }]) })
      const client = yield* setUp(emulator, toolsOf(...blocking("a")))
      client.send(ask("Go."))
      yield* client.received(2)
      client.send({ clientContent: { turnComplete: true } })
      client.send({ clientContent: { turns: [], turnComplete: true } })
      client.send({ realtimeInput: { audio: { mimeType: "audio/pcm", data: "AAAA" } } })
      client.send({ toolResponse: { functionResponses: [{ id: "call_0_0", name: "a", response: {} }] } })
      yield* client.received(5)
      expect(yield* client.finish).toStrictEqual([setupComplete, toolCall(["call_0_0", "a", {}]), ...words("Done."), generationComplete, turnComplete([1, 1, 2])])
      expect((yield* emulator.live)[0]!.cancelled).toStrictEqual([])
    }))

  it.scoped("CancelCalls cancels every unanswered blocking call at its time; with none answered the turn ends interrupted, without usage, and the model is not asked", () =>
    Effect.gen(function* () {
      const { policy, requests } = recorded(Policy.withFaults({ calls: [{ name: "a", args: {} }, { name: "b", args: {} }] }, Fault.cancelCalls()), { text: "Next." })
      const emulator = yield* Emulator.make({ policy })
      const client = yield* setUp(emulator, { ...toolsOf(...blocking("a", "b")), sessionResumption: {} })
      client.send(ask("Go."))
      yield* client.received(7)
      expect(requests).toHaveLength(1)
      client.send(ask("And now?"))
      yield* client.received(11)
      expect((yield* client.finish).slice(0, 7)).toStrictEqual([
        setupComplete,
        toolCall(["call_0_0", "a", {}], ["call_0_1", "b", {}]),
        noHandle,
        { toolCallCancellation: { ids: ["call_0_0", "call_0_1"] } },
        interrupted,
        turnComplete(),
        handle(1)
      ])
      expect(requests[1]!.transcript[2]).toEqual({ role: "user", parts: [cancelledResponse("call_0_0", "a"), cancelledResponse("call_0_1", "b")] })
      expect((yield* emulator.live)[0]!.cancelled).toStrictEqual(["call_0_0", "call_0_1"])
    }))

  it.scoped("CancelCalls on a turn of NON_BLOCKING calls cancels those still running once the turn has ended; an answer to one is then a violation", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({ policy: Policy.script([Policy.withFaults({ calls: [{ name: "w", args: {} }], ...usage(1, 1, 2) }, Fault.cancelCalls())]) })
      const client = yield* setUp(emulator, { ...toolsOf(...nonBlocking("w")), sessionResumption: {} })
      client.send(ask("Watch."))
      yield* client.received(6)
      client.send({ toolResponse: { functionResponses: [{ id: "call_0_0", name: "w", response: {} }] } })
      expect(yield* client.finish).toStrictEqual([setupComplete, toolCall(["call_0_0", "w", {}]), generationComplete, turnComplete([1, 1, 2]), noHandle, { toolCallCancellation: { ids: ["call_0_0"] } }])
      const [record] = yield* emulator.live
      expect(record!.cancelled).toStrictEqual(["call_0_0"])
      expect(record!.violations).toStrictEqual(['the cancelled call "call_0_0" was answered'])
    }))

  it.scoped("CancelCalls due after its turn's calls were answered cancels nothing, not even a later turn's outstanding call", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({
        policy: Policy.script([
          // Real timers of the server: the answer below comes well within the first (a loaded machine included), and the
          // second closes the session once the first would have cancelled the later call.
          Policy.withFaults({ calls: [{ name: "a", args: {} }] }, Fault.cancelCalls("1 second")),
          Policy.withFaults({ calls: [{ name: "b", args: {} }] }, Fault.goAway("1500 millis", { code: 4002 }))
        ])
      })
      const client = yield* setUp(emulator, toolsOf(...blocking("a", "b")))
      client.send(ask("Go."))
      yield* client.received(2)
      client.send({ toolResponse: { functionResponses: [{ id: "call_0_0", name: "a", response: {} }] } })
      expect(yield* client.closed).toEqual({ code: 4002, reason: "The session reached its time limit." })
      expect(yield* client.received(4)).toStrictEqual([setupComplete, toolCall(["call_0_0", "a", {}]), toolCall(["call_1_0", "b", {}]), { goAway: { timeLeft: "1.500s" } }])
      expect((yield* emulator.live)[0]!.cancelled).toStrictEqual([])
    }))

  it.scoped("NON_BLOCKING: the turn does not wait; willContinue keeps the call running, SILENT starts no turn, the last response is a quiet moment", () =>
    Effect.gen(function* () {
      const { policy, requests } = recorded({ calls: [{ name: "w", args: {} }], ...usage(1, 1, 2) }, { text: "Heard.", ...usage(2, 1, 3) })
      const emulator = yield* Emulator.make({ policy })
      // A declaration of another name is NON_BLOCKING, and one of this name says BLOCKING elsewhere: neither counts.
      const client = yield* setUp(emulator, { ...toolsOf(...nonBlocking("other"), { name: "w", description: "w", behavior: "BLOCKING" }, ...nonBlocking("w")), sessionResumption: {} })
      client.send(ask("Watch."))
      yield* client.received(5)
      client.send({ toolResponse: { functionResponses: [{ id: "call_0_0", name: "w", response: { progress: 1 }, willContinue: true, scheduling: "SILENT" }] } })
      client.send({ toolResponse: { functionResponses: [{ id: "call_0_0", name: "w", response: { progress: 2 }, willContinue: false, scheduling: "SILENT" }] } })
      yield* client.received(6)
      client.send(ask("Well?"))
      yield* client.received(10)
      expect(yield* client.finish).toStrictEqual([
        setupComplete,
        toolCall(["call_0_0", "w", {}]),
        generationComplete,
        turnComplete([1, 1, 2]),
        noHandle,
        handle(1),
        ...words("Heard."),
        generationComplete,
        turnComplete([2, 1, 3]),
        handle(2)
      ])
      expect(requests).toHaveLength(2)
      expect(requests[1]!.transcript.slice(2)).toEqual([
        { role: "user", parts: [answered("call_0_0", "w", { progress: 1 })] },
        { role: "user", parts: [answered("call_0_0", "w", { progress: 2 })] },
        Turn.user("Well?")
      ])
    }))

  it.scoped("a NON_BLOCKING call's response without scheduling starts a turn at once, and one that continues does too", () =>
    Effect.gen(function* () {
      const { policy, requests } = recorded({ calls: [{ name: "w", args: {} }], ...usage(1, 1, 2) }, { text: "One.", ...usage(1, 1, 2) }, { text: "Two.", ...usage(1, 1, 2) })
      const emulator = yield* Emulator.make({ policy })
      const client = yield* setUp(emulator, { ...toolsOf(...nonBlocking("w")), sessionResumption: {} })
      client.send(ask("Watch."))
      yield* client.received(5)
      client.send({ toolResponse: { functionResponses: [{ id: "call_0_0", name: "w", response: { progress: 1 }, willContinue: true }] } })
      yield* client.received(9)
      client.send({ toolResponse: { functionResponses: [{ id: "call_0_0", name: "w", response: { done: true }, scheduling: "INTERRUPT" }] } })
      yield* client.received(13)
      expect((yield* client.finish).slice(5)).toStrictEqual([
        ...words("One."),
        generationComplete,
        turnComplete([1, 1, 2]),
        noHandle,
        ...words("Two."),
        generationComplete,
        turnComplete([1, 1, 2]),
        handle(1)
      ])
      expect(requests).toHaveLength(3)
    }))

  it.scoped("DropAfterResponses on NON_BLOCKING calls closes with its code once the last of them has given its last response", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({ policy: Policy.script([Policy.withFaults({ calls: [{ name: "v", args: {} }, { name: "w", args: {} }], ...usage(1, 1, 2) }, Fault.dropAfterResponses(4001))]) })
      const client = yield* setUp(emulator, toolsOf(...nonBlocking("v", "w")))
      client.send(ask("Watch both."))
      yield* client.received(4)
      const respond = (id: string, willContinue: boolean) =>
        client.send({ toolResponse: { functionResponses: [{ id, name: "x", response: {}, willContinue, scheduling: "SILENT" }] } })
      respond("call_0_0", false)
      respond("call_0_1", true)
      // Still open: a frame the server refuses is still read.
      client.send({ toolResponse: { functionResponses: [{ id: "nobody", response: {} }] } })
      expect(yield* client.closed).toEqual({ code: 1007, reason: 'Function response id "nobody" does not match any outstanding function call.' })

      const second = yield* setUp(yield* Emulator.make({ policy: Policy.script([Policy.withFaults({ calls: [{ name: "v", args: {} }, { name: "w", args: {} }] }, Fault.dropAfterResponses(4001))]) }), toolsOf(...nonBlocking("v", "w")))
      second.send(ask("Watch both."))
      yield* second.received(4)
      second.send({ toolResponse: { functionResponses: [{ id: "call_0_0", response: {}, scheduling: "SILENT" }] } })
      second.send({ toolResponse: { functionResponses: [{ id: "call_0_1", response: {}, scheduling: "SILENT" }] } })
      expect(yield* second.closed).toEqual({ code: 4001, reason: "Internal error encountered." })
    }))

  it.scoped("DropAfterResponses counts only its own turn's NON_BLOCKING calls, and on a turn with blocking ones waits for those alone", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({
        policy: Policy.script([Policy.withFaults({ calls: [{ name: "v", args: {} }], ...usage(1, 1, 2) }, Fault.dropAfterResponses(4001)), { calls: [{ name: "w", args: {} }], ...usage(1, 1, 2) }])
      })
      const client = yield* setUp(emulator, toolsOf(...nonBlocking("v", "w")))
      client.send(ask("Watch v."))
      yield* client.received(4)
      client.send(ask("Watch w."))
      yield* client.received(7)
      // w, of the next turn, still runs: v's last response is its turn's last.
      client.send({ toolResponse: { functionResponses: [{ id: "call_0_0", response: {}, scheduling: "SILENT" }] } })
      expect(yield* client.closed).toEqual({ code: 4001, reason: "Internal error encountered." })

      const second = yield* Emulator.make({ policy: Policy.script([Policy.withFaults({ calls: [{ name: "a", args: {} }, { name: "w", args: {} }] }, Fault.dropAfterResponses(4001))]) })
      const mixed = yield* setUp(second, toolsOf(...blocking("a"), ...nonBlocking("w")))
      mixed.send(ask("Go."))
      yield* mixed.received(2)
      mixed.send({ toolResponse: { functionResponses: [{ id: "call_0_1", response: {}, scheduling: "SILENT" }] } })
      mixed.send({ toolResponse: { functionResponses: [{ id: "call_0_0", response: {} }] } })
      expect(yield* mixed.closed).toEqual({ code: 4001, reason: "Internal error encountered." })
      // Both responses were read: the NON_BLOCKING call's last one did not close the connection.
      expect((yield* second.live)[0]!.responses.map((response) => response.id)).toStrictEqual(["call_0_1", "call_0_0"])
    }))

  it.scoped("DropAfterResponses on blocking calls closes with its code and the service's words once they are answered, without asking the model", () =>
    Effect.gen(function* () {
      const { policy, requests } = recorded(Policy.withFaults({ calls: [{ name: "a", args: {} }] }, Fault.dropAfterResponses(4001)))
      const emulator = yield* Emulator.make({ policy })
      const client = yield* setUp(emulator, toolsOf(...blocking("a")))
      client.send(ask("Go."))
      yield* client.received(2)
      client.send({ toolResponse: { functionResponses: [{ id: "call_0_0", name: "a", response: {} }] } })
      expect(yield* client.closed).toEqual({ code: 4001, reason: "Internal error encountered." })
      expect(yield* client.received(2)).toHaveLength(2)
      expect(requests).toHaveLength(1)
      expect((yield* emulator.live)[0]!.closed).toStrictEqual({ code: 4001, reason: "Internal error encountered.", by: "server" })
    }))

  it.scoped("goAway gives the time left in seconds as the service writes it, after the turn, then closes with its code", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({ policy: Policy.script([Policy.withFaults({ text: "Hi.", ...usage(1, 1, 2) }, Fault.goAway("250 millis", { code: 1001 }))]) })
      const client = yield* setUp(emulator)
      client.send(ask("Hello."))
      expect(yield* client.closed).toEqual({ code: 1001, reason: "The session reached its time limit." })
      expect(yield* client.received(5)).toStrictEqual([setupComplete, ...words("Hi."), generationComplete, turnComplete([1, 1, 2]), { goAway: { timeLeft: "0.250s" } }])
    }))

  it.scoped("goAway's timeLeft is a protobuf Duration in JSON: whole seconds bare, else 3, 6 or 9 decimals; an endless one the largest Duration", () =>
    Effect.gen(function* () {
      const cases: ReadonlyArray<readonly [Duration.DurationInput, string]> = [
        ["2 seconds", "2s"],
        ["50 millis", "0.050s"],
        ["61500 millis", "61.500s"],
        ["1500 micros", "0.001500s"],
        ["1234567891 nanos", "1.234567891s"],
        [Duration.infinity, "315576000000s"]
      ]
      const emulator = yield* Emulator.make({ policy: Policy.script(cases.map(([timeLeft]) => Policy.withFaults({ text: "." }, Fault.goAway(timeLeft)))) })
      const written: Array<unknown> = []
      for (const _ of cases) {
        yield* Effect.scoped(
          Effect.gen(function* () {
            const client = yield* setUp(emulator)
            client.send(ask("Hello."))
            written.push((yield* client.received(5))[4])
          })
        )
      }
      expect(written).toStrictEqual(cases.map(([, timeLeft]) => ({ goAway: { timeLeft } })))
    }))

  it.scoped("a fault's raw frame goes out before the turn's words, as the bytes given", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({ policy: Policy.script([Policy.withFaults({ text: "Hi.", ...usage(1, 1, 2) }, Fault.rawFrame(new Uint8Array([0, 1]), { binary: true }), Fault.rawFrame("{}"))]) })
      const client = yield* setUp(emulator)
      client.send(ask("Hello."))
      yield* client.received(6)
      expect(yield* client.finish).toStrictEqual([setupComplete, { binary: "0001" }, {}, ...words("Hi."), generationComplete, turnComplete([1, 1, 2])])
      const [record] = yield* emulator.live
      expect(record!.sent.slice(1, 3)).toStrictEqual([Buffer.from([0, 1]), "{}"])
    }))
  it.scoped("a turn sends its text only (no reasoning), and calls without any declaration, or with a tool that declares none, are blocking; the faults are recorded", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({
        policy: Policy.script([
          Policy.withFaults({ reasoning: "Let me think.", text: "Hi.", ...usage(1, 1, 2) }, Fault.rawFrame("{}")),
          { calls: [{ name: "f", args: {} }] },
          { calls: [{ name: "g", args: {} }] }
        ])
      })
      const client = yield* setUp(emulator)
      client.send(ask("Hello."))
      yield* client.received(5)
      client.send(ask("Call f."))
      yield* client.received(6)
      expect((yield* client.finish).slice(1)).toStrictEqual([{}, ...words("Hi."), generationComplete, turnComplete([1, 1, 2]), toolCall(["call_1_0", "f", {}])])
      expect((yield* emulator.live)[0]!.faults).toStrictEqual([Fault.rawFrame("{}")])
      const other = yield* setUp(emulator, { tools: [{ googleSearch: {} }] })
      other.send(ask("Call g."))
      yield* other.received(2)
      expect(yield* other.finish).toStrictEqual([setupComplete, toolCall(["call_2_0", "g", {}])])
    }))

  it.scoped("with frameDelay the words go out one at a time: a connection closed meanwhile has had the first word only", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({ frameDelay: "1 hour", policy: Policy.script([{ text: "One two three." }]) })
      const client = yield* setUp(emulator)
      client.send(ask("Count."))
      yield* client.received(2)
      yield* emulator.closeLive(0, 4000, "enough")
      expect(yield* client.closed).toStrictEqual({ code: 4000, reason: "enough" })
      expect(yield* client.received(2)).toStrictEqual([setupComplete, ...words("One ")])
    }))
})

describe("a Live session's closes, exactly", () => {
  it.scoped("answer faults and error steps close the connection as the service would, after setupComplete and nothing else", () =>
    Effect.gen(function* () {
      const cases: ReadonlyArray<readonly [Policy.Reply, Closed]> = [
        [Fault.close(4000, "bye"), { code: 4000, reason: "bye" }],
        [Fault.unauthorized(), { code: 1007, reason: "API key not valid. Please pass a valid API key." }],
        [Fault.status(499), { code: 1007, reason: "Request contains an invalid argument." }],
        [Fault.status(500, { message: "boom" }), { code: 1011, reason: "boom" }],
        [Fault.overloaded(), { code: 1011, reason: "The service is currently unavailable." }],
        [Fault.rateLimited(), { code: 1011, reason: "Internal error encountered." }],
        [{ error: new ModelError.InvalidRequest({ message: "bad" }) }, { code: 1007, reason: "bad" }],
        [{ error: new ModelError.Unauthorized({ message: "who" }) }, { code: 1008, reason: "who" }],
        [{ error: new ModelError.Overloaded({ message: "busy" }) }, { code: 1011, reason: "busy" }]
      ]
      const emulator = yield* Emulator.make({ policy: Policy.script(cases.map(([reply]) => reply)) })
      const seen: Array<readonly [Closed, ReadonlyArray<unknown>]> = []
      for (let i = 0; i < cases.length; i++) {
        yield* Effect.scoped(
          Effect.gen(function* () {
            const client = yield* setUp(emulator)
            client.send(ask("Hello."))
            const closed = yield* client.closed
            seen.push([closed, yield* client.received(1)])
          })
        )
      }
      expect(seen).toStrictEqual(cases.map(([, closed]) => [closed, [setupComplete]]))
      expect((yield* emulator.live).map((record) => record.closed)).toStrictEqual(cases.map(([, closed]) => ({ ...closed, by: "server" })))
    }))

  it.scoped("a drop after the connection was closed, while the policy was deciding, leaves that close on record", () =>
    Effect.gen(function* () {
      const made: Array<Emulator.Service> = []
      const emulator = yield* Emulator.make({ policy: Policy.fromFunction(() => Effect.as(Effect.orDie(made[0]!.closeLive(0, 4000, "closed first")), Fault.disconnect)) })
      made.push(emulator)
      const client = yield* setUp(emulator)
      client.send(ask("Hello."))
      yield* client.closed
      expect((yield* emulator.live)[0]!.closed).toStrictEqual({ code: 4000, reason: "closed first", by: "server" })
    }))

  it.scoped("Disconnect drops the socket (1006, recorded as the emulator's drop); Stall answers nothing and keeps the connection", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({ policy: Policy.script([Fault.disconnect, Fault.stall]) })
      const dropped = yield* setUp(emulator)
      dropped.send(ask("Hello."))
      expect((yield* dropped.closed).code).toBe(1006)
      expect((yield* emulator.live)[0]!.closed).toStrictEqual({ code: 1006, reason: "dropped by the emulator", by: "server" })
      const stalled = yield* setUp(emulator)
      stalled.send(ask("Hello."))
      expect(yield* stalled.finish).toStrictEqual([setupComplete])
    }))
})

describe("a Live session reads its client's frames", () => {
  it.scoped("once the server has closed, the frames still in flight are not read; a client's close is recorded as it gave it", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make()
      const client = yield* open(emulator)
      client.send([1])
      client.send({ setup: { model: "models/m" } })
      expect(yield* client.closed).toStrictEqual({ code: 1007, reason: "Invalid JSON payload received. Expected an object, got [1]." })
      const [record] = yield* emulator.live
      expect([record!.received, record!.setup, record!.model]).toStrictEqual([[[1]], undefined, undefined])

      // A frame past the size limit, sent before the client heard the server's close, leaves that close as it was.
      const small = yield* Emulator.make({ maxLiveFrameBytes: 64 })
      const late = yield* setUp(small)
      yield* Effect.zipRight(
        small.closeLive(0, 4000, "closing"),
        Effect.sync(() => late.send({ realtimeInput: { text: "x".repeat(100) } }))
      )
      expect(yield* late.closed).toStrictEqual({ code: 4000, reason: "closing" })
      expect((yield* small.live)[0]!.closed).toStrictEqual({ code: 4000, reason: "closing", by: "server" })
      expect((yield* small.live)[0]!.violations).toStrictEqual([])

      // A turn the client left before it was answered sends nothing, its fault's raw frame neither, and records nothing sent.
      const gone = yield* Deferred.make<void>()
      const slow = yield* Emulator.make({ policy: Policy.fromFunction(() => Effect.as(Deferred.await(gone), Policy.withFaults({ text: "Too late." }, Fault.rawFrame("raw")))) })
      const impatient = yield* setUp(slow)
      impatient.send(ask("Hello?"))
      impatient.close(1000, "")
      yield* impatient.closed
      yield* Deferred.succeed(gone, undefined)
      expect(yield* slow.awaitLiveClosed(0)).toStrictEqual({ code: 1000, reason: "", by: "client" })
      expect((yield* slow.live)[0]!.sent).toStrictEqual([setupComplete])

      const leaving = yield* setUp(emulator)
      leaving.close(4000, "bye")
      expect(yield* emulator.awaitLiveClosed(1)).toStrictEqual({ code: 4000, reason: "bye", by: "client" })
    }))

  it.scoped("frames it cannot read close with 1007 and the parser's words, the frame kept as text; a binary one says so", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make()
      const refused = (text: string, binary: boolean) =>
        Effect.scoped(
          Effect.gen(function* () {
            const client = yield* open(emulator)
            client.sendText(text, binary)
            return yield* client.closed
          })
        )
      const notJson = yield* refused("{nope", false)
      expect(notJson.reason).toMatch(/^Invalid JSON payload received\. \S/)
      expect(notJson.code).toBe(1007)
      expect(yield* refused("{nope", true)).toStrictEqual({ code: 1007, reason: `${notJson.reason} (binary frame)` })
      expect(yield* refused("[1]", false)).toStrictEqual({ code: 1007, reason: "Invalid JSON payload received. Expected an object, got [1]." })
      const records = yield* emulator.live
      expect(records.map((record) => record.received)).toStrictEqual([["{nope"], ["{nope"], [[1]]])
    }))

  it.scoped("a frame the socket refuses (text that is not UTF-8, a reserved bit set, a length past 2^53 - 1) closes with the code ws sent, recorded as the server's close and a violation", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make()
      const notUtf8 = yield* setUp(emulator)
      notUtf8.sendBytes(Buffer.from([0x7b, 0xff, 0x7d]), false)
      expect(yield* notUtf8.closed).toStrictEqual({ code: 1007, reason: "" })
      expect(yield* emulator.awaitLiveClosed(0)).toStrictEqual({ code: 1007, reason: "", by: "server" })
      const reserved = yield* setUp(emulator)
      // A text frame with RSV2 set, masked, empty: written under the client's framing.
      reserved.sendRawFrame(Buffer.from([0xa1, 0x80, 0, 0, 0, 0]))
      expect(yield* reserved.closed).toStrictEqual({ code: 1002, reason: "" })
      expect(yield* emulator.awaitLiveClosed(1)).toStrictEqual({ code: 1002, reason: "", by: "server" })
      const huge = yield* setUp(emulator)
      // A text frame whose 64-bit length is past 2^53 - 1: too large, whatever maxLiveFrameBytes says.
      huge.sendRawFrame(Buffer.from([0x81, 0xff, 0x00, 0x20, 0, 0, 0, 0, 0, 0]))
      expect(yield* huge.closed).toStrictEqual({ code: 1009, reason: "" })
      expect(yield* emulator.awaitLiveClosed(2)).toStrictEqual({ code: 1009, reason: "", by: "server" })
      expect((yield* emulator.live).map((record) => record.violations)).toStrictEqual([
        ["a frame was refused: Invalid WebSocket frame: invalid UTF-8 sequence"],
        ["a frame was refused: Invalid WebSocket frame: RSV2 and RSV3 must be clear"],
        [`a frame larger than the limit of ${Emulator.defaultMaxLiveFrameBytes} bytes (maxLiveFrameBytes) was refused`]
      ])
    }))

  it.scoped("a binary frame of JSON is read like a text one, and a message in fragments as a whole", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({ policy: Policy.script([{ text: "Hi.", ...usage(1, 1, 2) }]) })
      const client = yield* open(emulator)
      client.sendText(JSON.stringify({ setup: { model: "models/m" } }), true)
      const text = JSON.stringify(ask("Hello."))
      client.sendFragments([text.slice(0, 10), text.slice(10, 20), text.slice(20)])
      yield* client.received(4)
      expect(yield* client.finish).toStrictEqual([setupComplete, ...words("Hi."), generationComplete, turnComplete([1, 1, 2])])
    }))

  it.scoped("a setup with every field the service knows is read; an empty handle starts a new session", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make()
      const setup = {
        model: "models/m",
        generationConfig: { responseModalities: ["TEXT"] },
        systemInstruction: { parts: [{ text: "s" }] },
        tools: [{ functionDeclarations: [{ name: "f", description: "f" }] }],
        sessionResumption: { handle: "", transparent: true },
        realtimeInputConfig: {},
        contextWindowCompression: {},
        inputAudioTranscription: {},
        outputAudioTranscription: {},
        proactivity: {},
        historyConfig: {},
        explicitVadSignal: true,
        safetySettings: [{}]
      }
      const client = yield* open(emulator)
      client.send({ setup })
      client.send({ realtimeInput: { audio: { mimeType: "audio/pcm", data: "AAAA" }, video: { mimeType: "image/jpeg", data: "AAAA" }, mediaChunks: [{ data: "AAAA" }] } })
      client.send({ realtimeInput: { audioStreamEnd: true, activityStart: {}, activityEnd: {} } })
      client.send({ contextUpdate: { systemInstruction: { parts: [{ text: "t" }] }, tools: {} } })
      client.send({ clientContent: { turns: [{ role: "user", parts: [{ text: "a" }] }] } })
      client.send({ toolResponse: {} })
      expect(yield* client.finish).toStrictEqual([setupComplete])
      const [record] = yield* emulator.live
      expect(record!.setup).toStrictEqual(setup)
      expect(record!.resumedFrom).toBeUndefined()
    }))

  it.scoped("clientContent: a turn runs only when complete and the last turn is the user's own words; roles other than user and model close with 1007", () =>
    Effect.gen(function* () {
      const { policy, requests } = recorded({ text: "A.", ...usage(1, 1, 2) })
      const emulator = yield* Emulator.make({ policy })
      const client = yield* setUp(emulator, toolsOf(...blocking("f")))
      client.send({ clientContent: { turns: [{ parts: [{ text: "no role" }] }, { role: "model", parts: [{ text: "said" }] }, { role: "user", parts: [{ text: "first" }] }] } })
      client.send({ clientContent: { turns: [{ role: "user", parts: [{ text: "second" }] }], turnComplete: false } })
      client.send({ clientContent: { turnComplete: true } })
      yield* client.received(4)
      // The model spoke last; then a user turn of responses alone: neither asks the model.
      client.send({ clientContent: { turnComplete: true } })
      client.send({ clientContent: { turns: [{ role: "user", parts: [{ functionResponse: { id: "x", name: "f", response: {} } }] }], turnComplete: true } })
      client.send({ clientContent: { turns: [{ role: "system", parts: [{ text: "be good" }] }] } })
      expect(yield* client.closed).toStrictEqual({ code: 1007, reason: "Please use a valid role: user, model." })
      expect(yield* client.received(4)).toStrictEqual([setupComplete, ...words("A."), generationComplete, turnComplete([1, 1, 2])])
      expect(requests).toHaveLength(1)
      expect(requests[0]!.transcript).toEqual([Turn.user("no role"), { role: "model", parts: [{ _tag: "Text", text: "said" }] }, Turn.user("first"), Turn.user("second")])
    }))

  it.scoped("a setup names a model as models/…: another closes with 1008 and the service's words, the model recorded as given", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make()
      const client = yield* open(emulator)
      client.send({ setup: { model: "tuned-models/x" } })
      expect(yield* client.closed).toStrictEqual({ code: 1008, reason: "tuned-models/x is not found for API version v1beta, or is not supported for bidiGenerateContent." })
      expect((yield* emulator.live)[0]!.model).toBe("tuned-models/x")
    }))

  it.scoped("a refused setup closes with the fault's code and reason; a slow one holds the frames sent meanwhile until setupComplete", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({ policy: Policy.script([{ text: "Hi.", ...usage(1, 1, 2) }]) })
      yield* emulator.inject(Fault.refuseSetup({ code: 4003, reason: "not today" }), { protocol: "gemini-live" })
      const refused = yield* open(emulator)
      refused.send({ setup: { model: "models/m" } })
      expect(yield* refused.closed).toStrictEqual({ code: 4003, reason: "not today" })
      expect((yield* emulator.live)[0]!.faults).toStrictEqual([Fault.refuseSetup({ code: 4003, reason: "not today" })])

      yield* emulator.inject(Fault.slowSetup("30 millis"), { protocol: "gemini-live" })
      const slow = yield* open(emulator)
      slow.send({ setup: { model: "models/m" } })
      slow.send(ask("Hello."))
      yield* slow.received(4)
      expect(yield* slow.finish).toStrictEqual([setupComplete, ...words("Hi."), generationComplete, turnComplete([1, 1, 2])])
    }))

  it.scoped("a tool response's errors close with 1007 and the service's words, naming the response by its index", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({ policy: Policy.fromFunction(() => ({ calls: [{ name: "a", args: {} }, { name: "b", args: {} }] })) })
      const refusal = (second: Record<string, unknown>) =>
        Effect.scoped(
          Effect.gen(function* () {
            const client = yield* setUp(emulator, toolsOf(...blocking("a", "b")))
            client.send(ask("Go."))
            const [, asked] = yield* client.received(2)
            const [first] = (asked as ReturnType<typeof toolCall>).toolCall.functionCalls
            client.send({ toolResponse: { functionResponses: [{ id: first!.id, name: "a", response: {} }, { name: "b", ...second }] } })
            return yield* client.closed
          })
        )
      const at = "tool_response.function_responses[1]"
      expect(yield* refusal({ response: {} })).toStrictEqual({ code: 1007, reason: "* BidiGenerateContentToolResponse.function_responses[1].id: id is required." })
      expect(yield* refusal({ id: "", response: {} })).toStrictEqual({ code: 1007, reason: "* BidiGenerateContentToolResponse.function_responses[1].id: id is required." })
      const id = (n: number) => `call_${n}_1`
      // Cut, as every close reason, to 123 bytes.
      expect(yield* refusal({ id: id(2), response: [1] })).toStrictEqual({
        code: 1007,
        reason: `Invalid JSON payload received. Unknown name "response" at '${at}': Proto field is not repeati`
      })
      expect(yield* refusal({ id: id(3), response: "off" })).toStrictEqual({ code: 1007, reason: `Invalid value at '${at}.response' (type.googleapis.com/google.protobuf.Struct), "off"` })
      expect(yield* refusal({ id: id(4) })).toStrictEqual({ code: 1007, reason: `Invalid value at '${at}.response' (type.googleapis.com/google.protobuf.Struct), null` })
    }))
})

describe("decodeFrame reads one client message as the service does", () => {
  const type = (name: string) => `type.googleapis.com/google.ai.generativelanguage.v1beta.${name}`

  it("each kind of message, and nothing else in the frame", () => {
    expect(decodeFrame({ setup: { model: "models/m" } })).toStrictEqual(Either.right({ _tag: "setup", setup: { model: "models/m" } }))
    expect(decodeFrame({ clientContent: { turnComplete: true } })).toStrictEqual(Either.right({ _tag: "clientContent", clientContent: { turnComplete: true } }))
    expect(decodeFrame({ realtimeInput: { text: "t" } })).toStrictEqual(Either.right({ _tag: "realtimeInput", realtimeInput: { text: "t" } }))
    expect(decodeFrame({ toolResponse: {} })).toStrictEqual(Either.right({ _tag: "toolResponse", toolResponse: {} }))
    expect(decodeFrame({ contextUpdate: {} })).toStrictEqual(Either.right({ _tag: "contextUpdate" }))
  })

  it("not an object, no message, or two of them (the second named in the service's order, not the frame's)", () => {
    expect(decodeFrame([1])).toStrictEqual(Either.left("Invalid JSON payload received. Expected an object, got [1]."))
    expect(decodeFrame("text")).toStrictEqual(Either.left('Invalid JSON payload received. Expected an object, got "text".'))
    expect(decodeFrame(null)).toStrictEqual(Either.left("Invalid JSON payload received. Expected an object, got null."))
    expect(decodeFrame(undefined)).toStrictEqual(Either.left("Invalid JSON payload received. Expected an object, got nothing."))
    expect(decodeFrame({})).toStrictEqual(Either.left(emptyMessage))
    expect(decodeFrame({ setup: {} })).toStrictEqual(Either.left("* BidiGenerateContentClientMessage.setup.model: model is required.\n"))
    expect(decodeFrame({ toolResponse: {}, clientContent: {}, setup: { model: "m" } })).toStrictEqual(
      Either.left("Invalid JSON payload received. Oneof field 'message_type' is already set. Cannot set 'clientContent'.")
    )
    expect(decodeFrame({ realtimeInput: {}, contextUpdate: {} })).toStrictEqual(Either.left("Invalid JSON payload received. Oneof field 'message_type' is already set. Cannot set 'contextUpdate'."))
  })

  it("a value of the wrong kind names the message the service expected there", () => {
    const invalid = (at: string, name: string, shown: string) => Either.left(`Invalid value at '${at}' (${type(name)}), ${shown}`)
    expect(decodeFrame({ setup: 5 })).toStrictEqual(invalid("setup", "BidiGenerateContentSetup", "5"))
    expect(decodeFrame({ clientContent: 5 })).toStrictEqual(invalid("client_content", "BidiGenerateContentClientContent", "5"))
    expect(decodeFrame({ realtimeInput: 5 })).toStrictEqual(invalid("realtime_input", "BidiGenerateContentRealtimeInput", "5"))
    expect(decodeFrame({ toolResponse: 5 })).toStrictEqual(invalid("tool_response", "BidiGenerateContentToolResponse", "5"))
    expect(decodeFrame({ contextUpdate: 5 })).toStrictEqual(invalid("context_update", "BidiGenerateContentContextUpdate", "5"))
    expect(decodeFrame({ setup: { model: "m", sessionResumption: 5 } })).toStrictEqual(invalid("setup.session_resumption", "BidiGenerateContentSessionResumptionConfig", "5"))
    expect(decodeFrame({ realtimeInput: { audio: "a" } })).toStrictEqual(invalid("realtime_input.audio", "Blob", '"a"'))
    expect(decodeFrame({ setup: { model: "m", explicitVadSignal: "yes" } })).toStrictEqual(Either.left(`Invalid value at 'setup.explicit_vad_signal' (TYPE_BOOL), "yes"`))
    expect(decodeFrame({ realtimeInput: { video: { mimeType: "image/png", displayName: "x" } } })).toStrictEqual(
      Either.left(`Invalid JSON payload received. Unknown name "displayName" at 'realtime_input.video': Cannot find field.`)
    )
  })
})
