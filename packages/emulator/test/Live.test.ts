import { describe, expect, it } from "@effect/vitest"
import { GoogleGenAI } from "@google/genai"
import type { LiveServerMessage, Session } from "@google/genai"
import { Duration, Effect, Either } from "effect"
import type { Scope } from "effect"
import { WebSocket } from "ws"
import { Turn } from "@agentfx/core"
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

  it.scoped("a NON_BLOCKING call does not hold the turn; willContinue: true is not its last response; SILENT starts no turn, WHEN_IDLE does", () =>
    Effect.gen(function* () {
      const transcripts: Array<ReadonlyArray<Turn.Turn>> = []
      const emulator = yield* Emulator.make({
        policy: Policy.fromFunction((request) => {
          transcripts.push(request.transcript)
          return transcripts.length === 1 ? { calls: [{ name: "watch", args: {} }] } : { text: "Done." }
        })
      })
      const client = yield* connect(emulator, { tools: [{ functionDeclarations: [{ name: "watch", description: "Watches", behavior: "NON_BLOCKING" as never }] }] })
      ask(client, "Watch it.")
      const asked = yield* Effect.promise(() => client.until((message) => message.toolCall !== undefined))
      const id = asked.find((message) => message.toolCall !== undefined)!.toolCall!.functionCalls![0]!.id!
      client.session.sendToolResponse({ functionResponses: [{ id, name: "watch", response: { progress: 50 }, willContinue: true, scheduling: "SILENT" as never }] })
      client.session.sendToolResponse({ functionResponses: [{ id, name: "watch", response: { output: "seen" }, willContinue: false, scheduling: "WHEN_IDLE" as never }] })
      const messages = yield* Effect.promise(() => client.until((message) => message.sessionResumptionUpdate?.resumable === true))
      // The first turn ended without waiting for the call, with an empty handle while the call ran.
      const call = messages.findIndex((message) => message.toolCall !== undefined)
      const firstEnd = messages.findIndex(turnComplete)
      expect(firstEnd).toBeGreaterThan(call)
      expect(messages.slice(call, firstEnd + 2).find((message) => message.sessionResumptionUpdate !== undefined)?.sessionResumptionUpdate).toEqual({ newHandle: "", resumable: false })
      expect(textOf(messages)).toBe("Done.")
      // One model turn after the call, not two: the SILENT response started none, the final WHEN_IDLE one did.
      expect(transcripts).toHaveLength(2)
      expect(transcripts[1]!.flatMap((turn) => Turn.responses(turn).map((response) => response.response))).toEqual([{ progress: 50 }, { output: "seen" }])
      const [record] = yield* emulator.live
      expect(record!.violations).toEqual([])
      // After its last response the call is over: another one is an answer sent twice (seen once the next turn is).
      client.session.sendToolResponse({ functionResponses: [{ id, name: "watch", response: { output: "again" } }] })
      ask(client, "Anything else?")
      yield* Effect.promise(() => client.until((message) => message.usageMetadata !== undefined && transcripts.length === 3))
      expect((yield* emulator.live)[0]!.violations).toEqual([`the call "${id}" was answered twice`])
    }))

  it.scoped("with blocking and NON_BLOCKING calls in one turn, the model waits for the blocking ones only; a declaration without behavior ignores willContinue", () =>
    Effect.gen(function* () {
      let turns = 0
      const emulator = yield* Emulator.make({
        policy: Policy.fromFunction(() =>
          ++turns === 1 ? { calls: [{ name: "get_device_status", args: { device_name: "lamp" } }, { name: "watch", args: {} }] } : { text: `Turn ${turns}.` }
        )
      })
      const client = yield* connect(emulator, {
        tools: [{ functionDeclarations: [...declarations, { name: "watch", description: "Watches", behavior: "NON_BLOCKING" as never }] }]
      })
      ask(client, "Check and watch.")
      const asked = yield* Effect.promise(() => client.until((message) => message.toolCall !== undefined))
      const [status, watch] = asked.find((message) => message.toolCall !== undefined)!.toolCall!.functionCalls!
      client.session.sendToolResponse({ functionResponses: [{ id: watch!.id!, name: "watch", response: { output: "seen" }, scheduling: "INTERRUPT" as never }] })
      client.session.sendToolResponse({ functionResponses: [{ id: status!.id!, name: "get_device_status", response: { status: "off" }, willContinue: true }] })
      expect(textOf(yield* Effect.promise(() => client.until(turnComplete)))).toBe("Turn 2.")
      expect(turns).toBe(2)
      expect((yield* emulator.live)[0]!.violations).toEqual([])
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
      expect(messages.find((message) => message.goAway !== undefined)!.goAway).toEqual({ timeLeft: "0.050s" })
      const handle = messages.flatMap((message) => (message.sessionResumptionUpdate?.resumable === true ? [message.sessionResumptionUpdate.newHandle!] : [])).pop()!
      expect(yield* Effect.promise(() => client.closed)).toEqual({ code: 1011, reason: "The session reached its time limit." })
      const resumed = yield* connect(emulator, { sessionResumption: { handle } })
      ask(resumed, "Do you remember?")
      expect(textOf(yield* Effect.promise(() => resumed.until(turnComplete)))).toBe("I remember 3 turns.")
      expect((yield* emulator.live)[1]!.resumedFrom).toBe(handle)
    }))

  it.scoped("refuses the setup on demand (1008), an unknown handle (1008) and a wrong key (1007, as the service does); a missing key refuses the upgrade", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make()
      yield* emulator.inject(Fault.refuseSetup(), { protocol: "gemini-live" })
      expect((yield* Effect.flip(connect(emulator))).message).toMatch(/^closed 1008: models\/unknown is not found/)
      expect((yield* Effect.flip(connect(emulator, { sessionResumption: { handle: "nope" } }))).message).toBe(
        "closed 1008: The session resumption handle is invalid or has expired."
      )
      expect((yield* Effect.flip(connect(emulator, {}, { apiKey: "wrong" }))).message).toBe("closed 1007: API key not valid. Please pass a valid API key.")
      const status = yield* Effect.promise(
        () =>
          new Promise<string>((resolve) => {
            const ws = new WebSocket(`${emulator.url.replace("http", "ws")}//ws/google.ai.generativelanguage.v1beta.GenerativeService.BidiGenerateContent`)
            ws.on("unexpected-response", (_req, res) => resolve(String(res.statusCode)))
            ws.on("error", () => resolve("error"))
          })
      )
      expect(status).toBe("403")
      expect((yield* emulator.live).map((record) => record.closed?.code)).toEqual([1008, 1008, 1007])
    }))

  it.scoped("refuses at setup, with 1007, the declarations REST refuses: a bad name, parameters with parametersJsonSchema", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make()
      const refused = [
        [{ name: "bad name!", description: "d" }],
        [{ description: "no name" }],
        [{ name: "both", description: "d", parameters: { type: "OBJECT" }, parametersJsonSchema: { type: "object" } }],
        [{ name: "f", description: "d", response: { type: "OBJECT" }, responseJsonSchema: { type: "object" } }]
      ]
      for (const functionDeclarations of refused) {
        // Scoped and mapped to a string, so a setup wrongly accepted fails the test with a short message.
        const outcome = yield* Effect.either(Effect.scoped(Effect.as(connect(emulator, { tools: [{ functionDeclarations }] }), "set up")))
        expect(Either.isLeft(outcome) ? outcome.left.message : outcome.right).toBe("closed 1007: Request contains an invalid argument.")
      }
      const records = yield* emulator.live
      expect(records.map((record) => record.closed)).toEqual(refused.map(() => ({ code: 1007, reason: "Request contains an invalid argument.", by: "server" })))
      // The same declarations, well formed, are accepted.
      yield* connect(emulator, { tools: [{ functionDeclarations: [{ name: "fine", description: "d", parameters: { type: "OBJECT" } }] }] })
    }))

  it.scoped("reads setup's declarations with the same proto schemas: JSON Schema keywords in `parameters` close with 1007 and the parser's words", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make()
      const outcome = yield* Effect.either(
        Effect.scoped(
          Effect.as(connect(emulator, { tools: [{ functionDeclarations: [{ name: "f", description: "d", parameters: { type: "OBJECT", properties: { unit: { type: "STRING", const: "C" } } } }] }] }), "set up")
        )
      )
      // A close reason is at most 123 bytes: the parser's message is cut there.
      const full = `Invalid JSON payload received. Unknown name "const" at 'setup.tools[0].function_declarations[0].parameters.properties[0].value': Cannot find field.`
      const reason = Either.isLeft(outcome) ? outcome.left.message.replace(/^closed 1007: /, "") : outcome.right
      expect(full.startsWith(reason) && reason.length > 100).toBe(true)
      expect((yield* emulator.awaitLiveClosed(0)).reason).toBe(reason)
    }))

  it.scoped("a slow setupComplete holds connect() until it comes", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make()
      yield* emulator.inject(Fault.slowSetup("60 millis"), { protocol: "gemini-live" })
      const started = Date.now()
      yield* connect(emulator)
      expect(Date.now() - started).toBeGreaterThanOrEqual(50)
    }))

  it.scoped("sends a fault's frame before setupComplete, as text or as the bytes given, and records the fault", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make()
      yield* emulator.inject([Fault.frameBeforeSetup("not JSON"), Fault.frameBeforeSetup(new Uint8Array([1, 2, 255]), { binary: true })], { protocol: "gemini-live" })
      const frames = yield* Effect.promise(
        () =>
          new Promise<ReadonlyArray<readonly [string, boolean]>>((resolve) => {
            const seen: Array<readonly [string, boolean]> = []
            const ws = new WebSocket(`${emulator.url.replace("http", "ws")}/ws/google.ai.generativelanguage.v1beta.GenerativeService.BidiGenerateContent?key=${emulator.apiKey}`)
            ws.on("open", () => ws.send(JSON.stringify({ setup: { model: "models/m" } })))
            ws.on("message", (data: Buffer, binary) => {
              seen.push([binary ? data.toString("hex") : data.toString("utf8"), binary])
              if (!binary && data.toString("utf8").includes("setupComplete")) {
                ws.close()
                resolve(seen)
              }
            })
          })
      )
      expect(frames).toStrictEqual([
        ["not JSON", false],
        ["0102ff", true],
        [JSON.stringify({ setupComplete: {} }), false]
      ])
      const [record] = yield* emulator.live
      expect(record!.faults.map((fault) => fault._tag)).toStrictEqual(["FrameBeforeSetup", "FrameBeforeSetup"])
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

  it("refuses, when the fault is made, a close code no close frame may carry; 1006 and the sendable codes are accepted", () => {
    const unsendable = [999, 1004, 1005, 1015, 1016, 2999, 5000, 1011.5]
    for (const code of unsendable) {
      for (const make of [() => Fault.close(code), () => Fault.goAway("1 second", { code }), () => Fault.dropAfterResponses(code), () => Fault.refuseSetup({ code })]) {
        expect(make).toThrow(Fault.InvalidCloseCode)
      }
    }
    expect(() => Fault.close(1005)).toThrow(/1005 is not a WebSocket close code a server can send/)
    // Each side of each boundary: 999 | 1000, 1003 | 1004, 1005 | 1006, 1014 | 1015, 2999 | 3000, 4999 | 5000.
    expect([1000, 1003, 1006, 1007, 1011, 1014, 3000, 4999].map((code) => Fault.close(code).code)).toEqual([1000, 1003, 1006, 1007, 1011, 1014, 3000, 4999])
  })

  it.scoped("closeLive closes with Google's internal-error words unless given a reason; a closed or unknown connection is left alone", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make()
      const client = yield* connect(emulator)
      const waiting = yield* Effect.fork(emulator.awaitLiveClosed(1))
      yield* Effect.yieldNow()
      yield* emulator.closeLive(0, 1011)
      expect(yield* Effect.promise(() => client.closed)).toStrictEqual({ code: 1011, reason: "Internal error encountered." })
      yield* emulator.closeLive(0, 1000, "again")
      yield* emulator.closeLive(5, 1000, "nobody")
      expect((yield* emulator.live).map((record) => [record.closed?.code, record.closed?.reason])).toStrictEqual([[1011, "Internal error encountered."]])
      const second = yield* connect(emulator)
      yield* emulator.closeLive(1, 4000, "bye")
      expect(yield* Effect.promise(() => second.closed)).toStrictEqual({ code: 4000, reason: "bye" })
      expect(yield* waiting).toMatchObject({ code: 4000, reason: "bye", by: "server" })
    }))

  it.scoped("refuses the upgrade of a path that is not Live's with 404, and of an empty key with 403", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make()
      const upgrade = (path: string) =>
        Effect.promise(
          () =>
            new Promise<string>((resolve) => {
              const ws = new WebSocket(`${emulator.url.replace("http", "ws")}${path}`)
              ws.on("unexpected-response", (_req, res) => {
                resolve(`${res.statusCode} ${res.statusMessage}`)
                res.resume()
              })
              ws.on("error", () => resolve("error"))
            })
        )
      expect(yield* upgrade("/ws/elsewhere?key=k")).toBe("404 Not Found")
      expect(yield* upgrade("/ws/google.ai.generativelanguage.v1beta.GenerativeService.BidiGenerateContent?key=")).toBe("403 Forbidden")
      expect(yield* emulator.live).toStrictEqual([])
    }))

  it.scoped("a close fault with 1006 drops the socket without a close frame, and the record says 1006", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({ policy: Policy.script([Fault.close(1006, "abnormal")]) })
      const client = yield* connect(emulator)
      ask(client, "hello")
      expect((yield* Effect.promise(() => client.closed)).code).toBe(1006)
      expect(yield* emulator.awaitLiveClosed(0)).toEqual({ code: 1006, reason: "abnormal", by: "server" })
    }))

  it.scoped("a hand-built fault with a code no frame may carry still ends the connection, recorded as the drop it was", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({ policy: Policy.script([{ _tag: "Close", code: 1005, reason: "no status" }]) })
      const client = yield* connect(emulator)
      ask(client, "hello")
      expect((yield* Effect.promise(() => client.closed)).code).toBe(1006)
      expect(yield* emulator.awaitLiveClosed(0)).toEqual({ code: 1006, reason: "dropped: 1005 cannot be sent in a close frame (no status)", by: "server" })
    }))

  it.scoped("closeLive fails with InvalidCloseCode for an unsendable code and leaves the connection open and answering", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({ policy: Policy.script([{ text: "Still here." }]) })
      const client = yield* connect(emulator)
      const error = yield* Effect.flip(emulator.closeLive(0, 1005))
      expect(error).toBeInstanceOf(Fault.InvalidCloseCode)
      expect(error.code).toBe(1005)
      expect((yield* emulator.live)[0]!.closed).toBeUndefined()
      ask(client, "hello")
      expect(textOf(yield* Effect.promise(() => client.until(turnComplete)))).toBe("Still here.")
      yield* emulator.closeLive(0, 4000, "x".repeat(200))
      const closed = yield* Effect.promise(() => client.closed)
      expect(closed.code).toBe(4000)
      expect(Buffer.byteLength(closed.reason)).toBeLessThanOrEqual(123)
      expect((yield* emulator.awaitLiveClosed(0)).reason).toBe(closed.reason)
    }))

  /** A raw socket on the Live endpoint that sends `frames` once open; resolves with the close it gets. */
  const rawClose = (emulator: Emulator.Service, frames: ReadonlyArray<string>, key = emulator.apiKey) =>
    Effect.promise(
      () =>
        new Promise<{ code: number; reason: string }>((resolve) => {
          const ws = new WebSocket(`${emulator.url.replace("http", "ws")}/ws/google.ai.generativelanguage.v1beta.GenerativeService.BidiGenerateContent?key=${key}`)
          ws.on("open", () => frames.forEach((frame) => ws.send(frame)))
          // The server's close may cut a frame still going out: the socket reports it, then closes.
          ws.on("error", () => {})
          ws.on("close", (code, reason) => resolve({ code, reason: reason.toString() }))
        })
    )

  it.scoped("a frame larger than maxLiveFrameBytes is refused from its header with 1009 (message too big), recorded as a violation; one at the limit is read", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({ maxLiveFrameBytes: 1024 })
      const setup = JSON.stringify({ setup: { model: "models/m" } })
      const big = JSON.stringify({ realtimeInput: { text: "x".repeat(2048) } })
      expect(yield* rawClose(emulator, [setup, big])).toEqual({ code: 1009, reason: "" })
      const [record] = yield* emulator.live
      expect(record!.closed).toEqual({ code: 1009, reason: "", by: "server" })
      expect(record!.violations).toEqual(["a frame larger than the limit of 1024 bytes (maxLiveFrameBytes) was refused"])
      // Before the setup too, and a frame of exactly the limit is not refused for its size (it is not JSON: 1007).
      expect(yield* rawClose(emulator, [big])).toEqual({ code: 1009, reason: "" })
      expect((yield* rawClose(emulator, ["y".repeat(1024)])).code).toBe(1007)
      // A wrong key's socket, already closing, refuses one too, and the emulator lives on to serve the next.
      expect((yield* rawClose(emulator, [big, big], "wrong")).code).toBe(1007)
      expect((yield* rawClose(emulator, [big])).code).toBe(1009)
      expect(Emulator.defaultMaxLiveFrameBytes).toBe(20 * 1024 * 1024)
    }))

  it.scoped("a connection that sends no setup within liveSetupTimeout is closed by the server with 1011; one whose setup came stays open", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({ liveSetupTimeout: "50 millis" })
      expect(yield* rawClose(emulator, [])).toEqual({ code: 1011, reason: "Deadline expired before operation could complete." })
      expect(yield* emulator.awaitLiveClosed(0)).toEqual({ code: 1011, reason: "Deadline expired before operation could complete.", by: "server" })
      // The deadline is the setup's: a session set up in time is not closed by it, and answers after it passed (a
      // connection opened after it, with the same deadline, has been closed by its own).
      const client = yield* connect(emulator)
      expect((yield* rawClose(emulator, [])).code).toBe(1011)
      ask(client, "still there?")
      yield* Effect.promise(() => client.until(turnComplete))
      expect((yield* emulator.live)[1]!.closed).toBeUndefined()
      expect(Duration.toMillis(Emulator.defaultLiveSetupTimeout)).toBe(10_000)
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
