import { describe, expect, it } from "@effect/vitest"
import { GoogleGenAI } from "@google/genai"
import type { LiveServerMessage, Session } from "@google/genai"
import { Effect } from "effect"
import type { Scope } from "effect"
import { WebSocket } from "ws"
import { Emulator, Fault, Policy } from "../src/index.js"

/** A raw SDK session on the emulator, with every server message it delivered and how it closed. */
interface Client {
  readonly session: Session
  readonly messages: Array<LiveServerMessage>
  readonly closed: Promise<{ code: number; reason: string }>
  /** Resolves with the messages once one matches. */
  readonly until: (match: (message: LiveServerMessage) => boolean) => Promise<ReadonlyArray<LiveServerMessage>>
}

const declarations = [
  { name: "get_device_status", description: "Status of a device", parametersJsonSchema: { type: "object", properties: { device_name: { type: "string" } }, required: ["device_name"] } }
]

const connect = (
  emulator: Emulator.Service,
  config: Record<string, unknown> = {},
  options: { readonly apiKey?: string; readonly model?: string } = {}
): Effect.Effect<Client, Error, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.tryPromise({
      try: async () => {
        const messages: Array<LiveServerMessage> = []
        const waiters = new Set<() => void>()
        let onClose: (event: { code: number; reason: string }) => void = () => {}
        const closed = new Promise<{ code: number; reason: string }>((resolve) => (onClose = resolve))
        const ai = new GoogleGenAI({ apiKey: options.apiKey ?? emulator.apiKey, httpOptions: { baseUrl: emulator.geminiBaseUrl } })
        const connecting = ai.live.connect({
          model: options.model ?? "gemini-live-2.5-flash-preview",
          config: { responseModalities: ["TEXT" as never], tools: [{ functionDeclarations: declarations }], sessionResumption: {}, ...config },
          callbacks: {
            onmessage: (message) => {
              messages.push(message)
              for (const waiter of [...waiters]) waiter()
            },
            onclose: (event) => onClose({ code: event.code, reason: event.reason })
          }
        })
        // connect() never settles when the server refuses the setup: race it with the close.
        const session = await Promise.race([connecting, closed.then((event) => Promise.reject(new Error(`closed ${event.code}: ${event.reason}`)))])
        const until = (match: (message: LiveServerMessage) => boolean) =>
          new Promise<ReadonlyArray<LiveServerMessage>>((resolve, reject) => {
            const check = () => {
              if (messages.some(match)) {
                waiters.delete(check)
                resolve([...messages])
              }
            }
            waiters.add(check)
            void closed.then((event) => reject(new Error(`closed ${event.code}: ${event.reason}`)))
            check()
          })
        return { session, messages, closed, until }
      },
      catch: (error) => (error instanceof Error ? error : new Error(String(error)))
    }),
    (client) => Effect.sync(() => client.session.close())
  )

const ask = (client: Client, text: string) => client.session.sendClientContent({ turns: [{ role: "user", parts: [{ text }] }], turnComplete: true })
const textOf = (messages: ReadonlyArray<LiveServerMessage>) => messages.map((message) => message.text ?? "").join("")
const turnComplete = (message: LiveServerMessage) => message.serverContent?.turnComplete === true

describe("Emulator — Gemini Live through @google/genai's live.connect", () => {
  it.scoped("completes the setup, answers text a word at a time, then generationComplete and turnComplete with usage", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({ policy: Policy.script([{ text: "The lamp is off." }]) })
      const client = yield* connect(emulator)
      ask(client, "Is the lamp on?")
      const messages = yield* Effect.promise(() => client.until(turnComplete))
      expect(textOf(messages)).toBe("The lamp is off.")
      expect(messages.filter((message) => message.text !== undefined).length).toBeGreaterThan(1)
      expect(messages.some((message) => message.serverContent?.generationComplete === true)).toBe(true)
      expect(messages.find(turnComplete)?.usageMetadata?.totalTokenCount).toBeGreaterThan(0)
      const [record] = yield* emulator.live
      expect(record!.path).toBe("/ws/google.ai.generativelanguage.v1beta.GenerativeService.BidiGenerateContent")
      expect(record!.model).toBe("gemini-live-2.5-flash-preview")
      expect(record!.apiKey).toBe("valid")
      expect(record!.received[0]).toMatchObject({ setup: { model: "models/gemini-live-2.5-flash-preview" } })
    }))

  it.scoped("asks for calls, waits for their responses by id, then goes on; handles are empty while calls are outstanding", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({
        policy: Policy.script([{ calls: [{ name: "get_device_status", args: { device_name: "lamp" } }, { name: "get_device_status", args: { device_name: "door" } }] }, { text: "Both checked." }])
      })
      const client = yield* connect(emulator)
      ask(client, "Check the lamp and the door.")
      const before = yield* Effect.promise(() => client.until((message) => message.toolCall !== undefined))
      const call = before.find((message) => message.toolCall !== undefined)!.toolCall!.functionCalls!
      expect(call.map((c) => [c.name, c.args])).toEqual([["get_device_status", { device_name: "lamp" }], ["get_device_status", { device_name: "door" }]])
      client.session.sendToolResponse({ functionResponses: call.map((c) => ({ id: c.id!, name: c.name!, response: { status: "off" } })) })
      const messages = yield* Effect.promise(() => client.until((message) => message.sessionResumptionUpdate?.resumable === true))
      expect(textOf(messages)).toBe("Both checked.")
      const updates = messages.flatMap((message) => (message.sessionResumptionUpdate === undefined ? [] : [message.sessionResumptionUpdate]))
      expect(updates[0]).toEqual({ newHandle: "", resumable: false })
      expect(updates[updates.length - 1]).toMatchObject({ resumable: true, newHandle: expect.stringMatching(/^live-handle-/) })
      const [record] = yield* emulator.live
      expect(record!.responses.map((response) => response.id)).toEqual(call.map((c) => c.id))
      expect(record!.violations).toEqual([])
    }))

  it.scoped("cancels calls on demand, and records an answer to a cancelled id as a violation", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({
        policy: Policy.script([Policy.withFaults({ calls: [{ name: "get_device_status", args: { device_name: "lamp" } }] }, Fault.cancelCalls("10 millis"))])
      })
      const client = yield* connect(emulator)
      ask(client, "Check the lamp.")
      const messages = yield* Effect.promise(() => client.until(turnComplete))
      const cancellation = messages.find((message) => message.toolCallCancellation !== undefined)!.toolCallCancellation!
      const call = messages.find((message) => message.toolCall !== undefined)!.toolCall!.functionCalls![0]!
      expect(cancellation.ids).toEqual([call.id])
      expect(messages.some((message) => message.serverContent?.interrupted === true)).toBe(true)
      client.session.sendToolResponse({ functionResponses: [{ id: call.id!, name: call.name!, response: { status: "off" } }] })
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 20)))
      const [record] = yield* emulator.live
      expect(record!.cancelled).toEqual([call.id])
      expect(record!.violations).toEqual([`the cancelled call "${call.id}" was answered`])
      expect(record!.closed).toBeUndefined()
    }))

  it.scoped("a response that is not an object, or to an id never asked, closes the connection with 1007 and the reason", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({ policy: Policy.script([{ calls: [{ name: "get_device_status", args: { device_name: "lamp" } }] }]) })
      const client = yield* connect(emulator)
      ask(client, "Check the lamp.")
      const messages = yield* Effect.promise(() => client.until((message) => message.toolCall !== undefined))
      const call = messages.find((message) => message.toolCall !== undefined)!.toolCall!.functionCalls![0]!
      client.session.sendToolResponse({ functionResponses: [{ id: "never-asked", name: call.name!, response: {} }] })
      expect(yield* Effect.promise(() => client.closed)).toEqual({ code: 1007, reason: 'Function response id "never-asked" does not match any outstanding function call.' })

      const second = yield* connect(yield* Emulator.make({ policy: Policy.script([{ calls: [{ name: "get_device_status", args: { device_name: "lamp" } }] }]) }))
      ask(second, "Check the lamp.")
      const asked = yield* Effect.promise(() => second.until((message) => message.toolCall !== undefined))
      const id = asked.find((message) => message.toolCall !== undefined)!.toolCall!.functionCalls![0]!.id!
      second.session.sendToolResponse({ functionResponses: [{ id, name: "get_device_status", response: "off" as never }] })
      const closed = yield* Effect.promise(() => second.closed)
      expect(closed.code).toBe(1007)
      expect(closed.reason).toContain("function_responses[0].response' (type.googleapis.com/google.protobuf.Struct)")
    }))

  it.scoped("goAway, then a close with 1011; the last handle resumes the session's history on a new connection", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({
        policy: Policy.fromFunction((request) => (request.transcript.length === 1 ? Policy.withFaults({ text: "First." }, Fault.goAway("50 millis")) : { text: `I remember ${request.transcript.length} turns.` }))
      })
      const client = yield* connect(emulator)
      ask(client, "Hello.")
      const messages = yield* Effect.promise(() => client.until((message) => message.goAway !== undefined))
      expect(messages.find((message) => message.goAway !== undefined)!.goAway).toEqual({ timeLeft: "0.05s" })
      const handle = messages.flatMap((message) => (message.sessionResumptionUpdate?.resumable === true ? [message.sessionResumptionUpdate.newHandle!] : [])).pop()!
      expect(yield* Effect.promise(() => client.closed)).toEqual({ code: 1011, reason: "The session reached its time limit." })
      const resumed = yield* connect(emulator, { sessionResumption: { handle } })
      ask(resumed, "Do you remember?")
      expect(textOf(yield* Effect.promise(() => resumed.until(turnComplete)))).toBe("I remember 3 turns.")
      expect((yield* emulator.live)[1]!.resumedFrom).toBe(handle)
    }))

  it.scoped("refuses the setup on demand (1008), an unknown handle (1008) and a wrong key (1008); a missing key refuses the upgrade", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make()
      yield* emulator.inject(Fault.refuseSetup(), { protocol: "gemini-live" })
      expect((yield* Effect.flip(connect(emulator))).message).toMatch(/^closed 1008: models\/unknown is not found/)
      expect((yield* Effect.flip(connect(emulator, { sessionResumption: { handle: "nope" } }))).message).toBe(
        "closed 1008: The session resumption handle is invalid or has expired."
      )
      expect((yield* Effect.flip(connect(emulator, {}, { apiKey: "wrong" }))).message).toBe("closed 1008: API key not valid. Please pass a valid API key.")
      const status = yield* Effect.promise(
        () =>
          new Promise<string>((resolve) => {
            const ws = new WebSocket(`${emulator.url.replace("http", "ws")}//ws/google.ai.generativelanguage.v1beta.GenerativeService.BidiGenerateContent`)
            ws.on("unexpected-response", (_req, res) => resolve(String(res.statusCode)))
            ws.on("error", () => resolve("error"))
          })
      )
      expect(status).toBe("403")
      expect((yield* emulator.live).map((record) => record.closed?.code)).toEqual([1008, 1008, 1008])
    }))

  it.scoped("a slow setupComplete holds connect() until it comes", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make()
      yield* emulator.inject(Fault.slowSetup("60 millis"), { protocol: "gemini-live" })
      const started = Date.now()
      yield* connect(emulator)
      expect(Date.now() - started).toBeGreaterThanOrEqual(50)
    }))

  it.scoped("strict about frames: setup first and once, one message per frame, known fields only, JSON only", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make()
      const raw = (frames: ReadonlyArray<string>) =>
        Effect.promise(
          () =>
            new Promise<{ code: number; reason: string }>((resolve) => {
              const ws = new WebSocket(`${emulator.url.replace("http", "ws")}/ws/google.ai.generativelanguage.v1beta.GenerativeService.BidiGenerateContent?key=${emulator.apiKey}`)
              ws.on("open", () => frames.forEach((frame) => ws.send(frame)))
              ws.on("close", (code, reason) => resolve({ code, reason: reason.toString() }))
            })
        )
      const setup = JSON.stringify({ setup: { model: "models/m" } })
      expect(yield* raw([JSON.stringify({ clientContent: { turnComplete: true } })])).toEqual({ code: 1007, reason: "The first message of a session must be its setup." })
      expect(yield* raw([setup, setup])).toEqual({ code: 1007, reason: "A session is set up once: a second setup message is not allowed." })
      expect((yield* raw(["not json"])).code).toBe(1007)
      expect(yield* raw([setup, JSON.stringify({ clientContent: {}, realtimeInput: {} })])).toEqual({
        code: 1007,
        reason: "Invalid JSON payload received. Oneof field 'message_type' is already set. Cannot set 'realtimeInput'."
      })
      expect(yield* raw([JSON.stringify({ setup: { model: "models/m", responseModalities: ["TEXT"] } })])).toEqual({
        code: 1007,
        reason: `Invalid JSON payload received. Unknown name "responseModalities" at 'setup': Cannot find field.`
      })
    }))

  it.scoped("drops after the responses on demand, and sends a raw frame (binary JSON is still JSON)", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({
        policy: Policy.script([
          Policy.withFaults({ calls: [{ name: "get_device_status", args: { device_name: "lamp" } }] }, Fault.dropAfterResponses(), Fault.rawFrame(JSON.stringify({ serverContent: { modelTurn: { parts: [{ text: "binary " }] } } }), { binary: true }))
        ])
      })
      const client = yield* connect(emulator)
      ask(client, "Check the lamp.")
      const messages = yield* Effect.promise(() => client.until((message) => message.toolCall !== undefined))
      expect(messages.some((message) => message.text === "binary ")).toBe(true)
      const call = messages.find((message) => message.toolCall !== undefined)!.toolCall!.functionCalls![0]!
      client.session.sendToolResponse({ functionResponses: [{ id: call.id!, name: call.name!, response: { ok: true } }] })
      expect((yield* Effect.promise(() => client.closed)).code).toBe(1011)
    }))

  it.scoped("closes a connection on demand, with a close code or by dropping the socket", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make()
      const client = yield* connect(emulator)
      yield* emulator.closeLive(0, 1006)
      expect((yield* Effect.promise(() => client.closed)).code).toBe(1006)
      expect(yield* emulator.awaitLiveClosed(0)).toMatchObject({ code: 1006, by: "server" })
    }))

  it.scoped("keeps the last record.max closed connections (indices count them all); open ones are always kept", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({ policy: Policy.fromFunction(() => ({ text: "ok" })), record: { max: 2 } })
      for (let i = 0; i < 4; i++) {
        yield* Effect.scoped(
          Effect.gen(function* () {
            const client = yield* connect(emulator)
            ask(client, "hello")
            yield* Effect.promise(() => client.until(turnComplete))
          })
        )
        yield* emulator.awaitLiveClosed(i)
      }
      const open = yield* connect(emulator)
      yield* emulator.awaitLive(5)
      const records = yield* emulator.live
      expect(records.map((record) => record.index)).toEqual([3, 4])
      expect(records[1]!.closed).toBeUndefined()
      expect(yield* Effect.exit(emulator.awaitLiveClosed(0))).toMatchObject({ _tag: "Failure" })
      open.session.close()
      expect(yield* emulator.awaitLiveClosed(4)).toMatchObject({ by: "client" })
    }))
})
