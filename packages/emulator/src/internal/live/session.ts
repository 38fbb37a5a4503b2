/**
 * One Gemini Live connection, served: `setup` first and once (then `setupComplete`), user turns answered by the
 * policy (text a word at a time, then `generationComplete` and `turnComplete` with usage; or a `toolCall` whose
 * blocking calls' responses the server waits for, while NON_BLOCKING ones run on: their responses, `willContinue`
 * until the last, join the history and start a turn unless SILENT), cancellations, `goAway`, resumption handles
 * (empty while calls are outstanding) and the resumption of a session's history. Strict like the real server: a
 * setup with ill-formed declarations, a frame it cannot read, a response to an id it never asked, or a response
 * that is not an object closes the connection with 1007 and the reason.
 *
 * Everything that happens to the connection (a client frame, a timer) is an input processed in order by one
 * fiber, so a response never races the turn it answers.
 */
import { Turn } from "@agentfx/core"
import type { FunctionCall, FunctionResponse, Json } from "@agentfx/core"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import type { WebSocket } from "ws"
import type * as Fault from "../../Fault.js"
import type * as Policy from "../../Policy.js"
import type { Decision } from "../answer.js"
import { pieces, policyRequest } from "../answer.js"
import { messages } from "../gemini/errors.js"
import { declarationsOf, textOf, toNeutral } from "../gemini/request.js"
import { declarationViolation } from "../gemini/rules.js"
import type * as GeminiWire from "../gemini/wire.js"
import { isErrorResponse, isPlainObject, parse } from "../json.js"
import type { LiveResponse } from "./record.js"
import type { MutableRecord } from "./connection.js"
import { append, closeSocket, frameLog } from "./connection.js"
import { keyRejection } from "./route.js"
import * as Wire from "./wire.js"

/**
 * Resumption handles: each stands for the history of a session at a quiet moment. The session's history only grows
 * by appending (a resumed session starts a new array), so `issue` may keep the array and its length, not a copy.
 */
export interface Handles {
  readonly issue: (history: ReadonlyArray<Turn.Turn>) => string
  readonly resume: (handle: string) => ReadonlyArray<Turn.Turn> | undefined
}

export interface Context {
  readonly frameDelay: number
  /** How long the connection may wait for its `setup`. */
  readonly setupTimeout: Duration.Duration
  /** The largest client frame (the socket's `maxPayload`), for the record of one refused. */
  readonly maxFrameBytes: number
  /** Whether frames and responses are recorded (`record: false` and `bodies: false` keep none). */
  readonly keepFrames: boolean
  readonly decide: (request: Policy.Request, note: (faults: ReadonlyArray<Fault.Fault>) => void) => Effect.Effect<Decision>
  /** The faults injected for this connection's setup. */
  readonly takeSetupFaults: () => ReadonlyArray<Fault.Fault>
  /** A number for each model turn of every Live session (the policy request's index). */
  readonly nextTurn: () => number
  readonly handles: Handles
  /** Tells the emulator's waiters that the record changed. */
  readonly changed: () => void
}

type Input =
  | { readonly _tag: "Frame"; readonly data: Buffer; readonly binary: boolean }
  | { readonly _tag: "SetupOverdue" }
  | { readonly _tag: "SetupDue" }
  | { readonly _tag: "CancelDue"; readonly turn: number }
  | { readonly _tag: "CloseDue"; readonly code: number; readonly reason: string }
  | { readonly _tag: "ClientClosed"; readonly code: number; readonly reason: string }

/** A NON_BLOCKING call still running: the model went on; its responses come when they come. */
interface Running {
  readonly call: FunctionCall.FunctionCall
  readonly turn: number
  readonly dropAfter: number | undefined
}

/** A turn whose blocking calls the model waits for. A cancellation ends it: the calls it cancels are all it lacked. */
interface Pending {
  readonly turn: number
  readonly calls: ReadonlyArray<FunctionCall.FunctionCall>
  readonly answers: Map<string, FunctionResponse.FunctionResponse>
  readonly dropAfter: number | undefined
}

/** What a connection whose setup never came is closed with: the words of a Google service's DEADLINE_EXCEEDED. */
const setupOverdue = "Deadline expired before operation could complete."

/**
 * The close `ws` has sent when it refuses a client frame, by its error's code: 1009 for a length past `maxPayload`
 * (or past 2^53 - 1), 1007 for text that is not UTF-8, 1002 for any other breach of the protocol.
 */
const refusedFrameClose = (code: string | undefined): number => {
  switch (code) {
    case "WS_ERR_UNSUPPORTED_MESSAGE_LENGTH":
    case "WS_ERR_UNSUPPORTED_DATA_PAYLOAD_LENGTH":
      return 1009
    case "WS_ERR_INVALID_UTF8":
      return 1007
    default:
      return 1002
  }
}

/**
 * A time left as the service writes it, in a `google.protobuf.Duration`'s JSON: seconds, with 3, 6 or 9 decimals as
 * the precision needs (none for whole seconds), then "s"; an endless one as the largest Duration there is.
 */
const timeLeftText = (duration: Duration.Duration): string => {
  const nanos = Option.getOrElse(Duration.toNanos(duration), () => 315_576_000_000_000_000_000n)
  const fraction = nanos % 1_000_000_000n
  const digits = fraction.toString().padStart(9, "0")
  const decimals = fraction === 0n ? "" : `.${fraction % 1_000_000n === 0n ? digits.slice(0, 3) : fraction % 1_000n === 0n ? digits.slice(0, 6) : digits}`
  return `${nanos / 1_000_000_000n}${decimals}s`
}

const cancelledResponse = (call: FunctionCall.FunctionCall): FunctionResponse.FunctionResponse => ({
  _tag: "FunctionResponse",
  id: call.id,
  name: call.name,
  response: { error: { type: "Cancelled", message: "the call was cancelled before it was answered" } },
  isError: true
})

/** Serves one accepted connection until it closes. */
export const serve = (socket: WebSocket, record: MutableRecord, ctx: Context): Effect.Effect<void> =>
  Effect.gen(function* () {
    const inputs = yield* Queue.unbounded<Input>()
    // With ws's default binaryType ("nodebuffer") every message, in fragments or not, arrives as one Buffer.
    socket.on("message", (data, binary) => Queue.unsafeOffer(inputs, { _tag: "Frame", data: data as Buffer, binary }))
    socket.on("close", (code, reason) => Queue.unsafeOffer(inputs, { _tag: "ClientClosed", code, reason: reason.toString("utf8") }))
    // A server socket's errors are the frames it refused. It has sent its close already (1009 past `maxPayload`,
    // 1007 for text that is not UTF-8, 1002 for the rest), and ends once the client answers it: the server's close.
    socket.on("error", (error: Error & { readonly code?: string }) => {
      if (record.closed !== undefined) return
      const code = refusedFrameClose(error.code)
      record.closed = { code, reason: "", by: "server" }
      append(record.violations, code === 1009 ? `a frame larger than the limit of ${ctx.maxFrameBytes} bytes (maxLiveFrameBytes) was refused` : `a frame was refused: ${error.message}`)
      ctx.changed()
    })
    const scope = yield* Effect.scope
    const later = (after: Duration.Duration, input: Input): Effect.Effect<void> =>
      Effect.asVoid(Effect.forkIn(Effect.zipRight(Effect.sleep(after), Queue.offer(inputs, input)), scope))

    let setup: Wire.Setup | undefined
    let ready = false
    const backlog: Array<Input> = []
    let history: Array<Turn.Turn> = []
    let pending: Pending | undefined
    const running = new Map<string, Running>()
    const isNonBlocking = (name: string): boolean =>
      (setup?.tools ?? []).some((tool) => (tool.functionDeclarations ?? []).some((declaration) => declaration.name === name && declaration.behavior === "NON_BLOCKING"))
    const everAnswered = new Set<string>()
    const everCancelled = new Set<string>()
    /** The close a DropAfterResponses fault asks for once a turn's NON_BLOCKING calls have all finished. */
    let dropping: number | undefined

    // Every close (the server's, the client's, a refused frame's) leaves the socket no longer OPEN.
    const isOpen = () => socket.readyState === socket.OPEN
    const changed = () => ctx.changed()
    const keepReceived = frameLog(record, "received", ctx.keepFrames)
    const keepSent = frameLog(record, "sent", ctx.keepFrames)

    const send = (frame: object): Effect.Effect<void> =>
      Effect.sync(() => {
        if (!isOpen()) return
        const text = JSON.stringify(frame)
        socket.send(text)
        keepSent(frame, text.length)
      })

    const close = (code: number, reason: string): Effect.Effect<void> =>
      Effect.sync(() => {
        // Once closed, closeSocket leaves the socket and the record as they are.
        closeSocket(socket, record, code, reason)
        changed()
      })

    const drop: Effect.Effect<void> = Effect.sync(() => {
      if (record.closed === undefined) record.closed = { code: 1006, reason: "dropped by the emulator", by: "server" }
      socket.terminate()
      changed()
    })

    const invalid = (reason: string) => close(1007, reason)

    /** A fault's frame, as given: text as UTF-8, bytes as they are (in a text frame unless `binary`). */
    const sendRaw = (fault: Fault.RawFrame | Fault.FrameBeforeSetup): void => {
      if (!isOpen()) return
      const bytes = Buffer.from(fault.data)
      socket.send(bytes, { binary: fault.binary })
      // Bytes are kept as the copy sent, not the caller's array, which may change after.
      keepSent(typeof fault.data === "string" ? fault.data : bytes, bytes.length)
    }

    const resumption = (handle: string | undefined): Effect.Effect<void> =>
      setup?.sessionResumption === undefined
        ? Effect.void
        : send({ sessionResumptionUpdate: handle === undefined ? { newHandle: "", resumable: false } : { newHandle: handle, resumable: true } })

    /** A quiet moment (no call outstanding, blocking or not) is worth a handle; otherwise the handle is empty. */
    const quiet = Effect.suspend(() => resumption(pending === undefined && running.size === 0 ? ctx.handles.issue(history) : undefined))

    /** The turn is over. */
    const turnComplete = (usage: object | undefined) =>
      Effect.zipRight(send(usage === undefined ? { serverContent: { turnComplete: true } } : { serverContent: { turnComplete: true }, usageMetadata: usage }), quiet)

    const applyFault = (fault: Fault.AnswerFault): Effect.Effect<void> => {
      switch (fault._tag) {
        case "Stall":
          return Effect.void
        case "Disconnect":
          return drop
        case "Close":
          return close(fault.code, fault.reason)
        case "Unauthorized":
          return close(keyRejection.code, keyRejection.reason)
        case "Status":
          return close(fault.status >= 500 ? 1011 : 1007, fault.message ?? messages.invalidArgument)
        default:
          return close(1011, fault._tag === "Overloaded" ? "The service is currently unavailable." : "Internal error encountered.")
      }
    }

    const runTurn: Effect.Effect<void> = Effect.gen(function* () {
      const index = ctx.nextTurn()
      const request = policyRequest(
        { protocol: "gemini-live", flavour: "gemini", index, model: record.model ?? "", stream: true },
        { system: textOf(setup?.systemInstruction), transcript: [...history], declarations: declarationsOf(setup?.tools), toolChoice: undefined }
      )
      const decision = yield* ctx.decide(request, (faults) => {
        append(record.faults, ...faults)
        changed()
      })
      if (decision._tag === "Fault") return yield* applyFault(decision.fault)
      if (decision._tag === "Error") {
        const error = decision.error
        return yield* close(error._tag === "InvalidRequest" ? 1007 : error._tag === "Unauthorized" ? 1008 : 1011, error.message)
      }
      const { answer, faults } = decision
      for (const fault of faults) if (fault._tag === "RawFrame") sendRaw(fault)
      for (const part of answer.turn.parts) {
        if (part._tag !== "Text") continue
        for (const piece of pieces(part.text)) {
          yield* send({ serverContent: { modelTurn: { role: "model", parts: [{ text: piece }] } } })
          if (ctx.frameDelay > 0) yield* Effect.sleep(ctx.frameDelay)
        }
      }
      history.push(answer.turn)
      const calls = Turn.calls(answer.turn)
      const usage = { promptTokenCount: answer.usage.inputTokens, responseTokenCount: answer.usage.outputTokens, totalTokenCount: answer.usage.totalTokens }
      if (calls.length > 0) {
        yield* send({ toolCall: { functionCalls: calls.map((call) => ({ id: call.id, name: call.name, args: call.args })) } })
        const cancel = faults.find((fault) => fault._tag === "CancelCalls")
        const dropAfter = faults.find((fault) => fault._tag === "DropAfterResponses")?.code
        // The model waits for the blocking calls; NON_BLOCKING ones run while it goes on, so without blocking calls the turn ends here.
        const blocking = calls.filter((call) => !isNonBlocking(call.name))
        for (const call of calls) if (isNonBlocking(call.name)) running.set(call.id, { call, turn: index, dropAfter: blocking.length === 0 ? dropAfter : undefined })
        if (blocking.length > 0) {
          pending = { turn: index, calls: blocking, answers: new Map(), dropAfter }
          yield* resumption(undefined)
        } else {
          yield* send({ serverContent: { generationComplete: true } })
          yield* turnComplete(usage)
        }
        if (cancel !== undefined) yield* later(cancel.after, { _tag: "CancelDue", turn: index })
      } else {
        yield* send({ serverContent: { generationComplete: true } })
        yield* turnComplete(usage)
      }
      const goAway = faults.find((fault) => fault._tag === "GoAway")
      if (goAway !== undefined) {
        yield* send({ goAway: { timeLeft: timeLeftText(goAway.timeLeft) } })
        yield* later(goAway.timeLeft, { _tag: "CloseDue", code: goAway.code, reason: "The session reached its time limit." })
      }
    })

    const resolved = (turn: Pending) => turn.calls.every((call) => turn.answers.has(call.id))

    /** Every call of the turn is answered or cancelled: record the responses, then go on (or stop, or drop). */
    const finishCalls = (turn: Pending): Effect.Effect<void> =>
      Effect.suspend(() => {
        pending = undefined
        history.push({ role: "user", parts: turn.calls.map((call) => turn.answers.get(call.id) ?? cancelledResponse(call)) })
        if (turn.dropAfter !== undefined) return close(turn.dropAfter, "Internal error encountered.")
        if (turn.answers.size === 0) return Effect.zipRight(send({ serverContent: { interrupted: true } }), turnComplete(undefined))
        return runTurn
      })

    /** Cancels the unanswered blocking calls of `turn`, and the NON_BLOCKING calls of turn `index` still running. */
    const cancel = (turn: Pending | undefined, index: number | undefined): Effect.Effect<void> =>
      Effect.suspend(() => {
        const blocking = turn === undefined ? [] : turn.calls.map((call) => call.id).filter((id) => !turn.answers.has(id))
        const background = index === undefined ? [] : [...running.values()].filter((entry) => entry.turn === index).map((entry) => entry.call.id)
        for (const id of background) running.delete(id)
        const ids = [...blocking, ...background]
        if (ids.length === 0) return Effect.void
        for (const id of ids) {
          everCancelled.add(id)
          append(record.cancelled, id)
        }
        changed()
        return send({ toolCallCancellation: { ids } })
      })

    /** New user content while the model waits interrupts it: its blocking calls are cancelled (NON_BLOCKING ones run on). */
    const interrupt: Effect.Effect<void> = Effect.suspend(() => {
      const turn = pending
      if (turn === undefined) return Effect.void
      pending = undefined
      return cancel(turn, undefined).pipe(
        Effect.zipRight(Effect.sync(() => history.push({ role: "user", parts: turn.calls.map((call) => turn.answers.get(call.id) ?? cancelledResponse(call)) }))),
        Effect.zipRight(send({ serverContent: { interrupted: true } }))
      )
    })

    const onToolResponse = (toolResponse: Wire.ToolResponse): Effect.Effect<void> =>
      Effect.gen(function* () {
        const responses = toolResponse.functionResponses ?? []
        let wantTurn = false
        const runningBefore = running.size
        for (let j = 0; j < responses.length; j++) {
          const response = responses[j]!
          const at = `tool_response.function_responses[${j}]`
          if (response.id === undefined || response.id === "") return yield* invalid(`* BidiGenerateContentToolResponse.function_responses[${j}].id: id is required.`)
          if (!isPlainObject(response.response)) {
            return yield* invalid(
              Array.isArray(response.response)
                ? `Invalid JSON payload received. Unknown name "response" at '${at}': Proto field is not repeating, cannot start list.`
                : `Invalid value at '${at}.response' (type.googleapis.com/google.protobuf.Struct), ${JSON.stringify(response.response ?? null)}`
            )
          }
          const recorded: LiveResponse = {
            id: response.id,
            name: response.name ?? "",
            response: response.response,
            ...(response.scheduling === undefined ? {} : { scheduling: response.scheduling }),
            ...(response.willContinue === undefined ? {} : { willContinue: response.willContinue })
          }
          if (ctx.keepFrames) append(record.responses, recorded)
          changed()
          const background = running.get(response.id)
          if (background !== undefined) {
            if (onRunningResponse(background, response)) wantTurn = true
            continue
          }
          const turn = pending
          const call = turn?.calls.find((candidate) => candidate.id === response.id)
          if (turn === undefined || call === undefined) {
            if (everCancelled.has(response.id)) append(record.violations, `the cancelled call "${response.id}" was answered`)
            else if (everAnswered.has(response.id)) append(record.violations, `the call "${response.id}" was answered twice`)
            else return yield* invalid(`Function response id "${response.id}" does not match any outstanding function call.`)
            continue
          }
          if (turn.answers.has(call.id)) {
            append(record.violations, `the call "${call.id}" was answered twice`)
            continue
          }
          everAnswered.add(call.id)
          turn.answers.set(call.id, { _tag: "FunctionResponse", id: call.id, name: call.name, response: response.response, isError: isErrorResponse(response.response) })
        }
        const turn = pending
        if (turn !== undefined && resolved(turn)) return yield* finishCalls(turn)
        const drained = dropping
        dropping = undefined
        if (drained !== undefined) return yield* close(drained, "Internal error encountered.")
        // Turns are sent whole, so the model is never mid-answer here: INTERRUPT and WHEN_IDLE both speak now,
        // unless the model still waits for blocking calls (it hears the response with their answers).
        if (turn === undefined && wantTurn) return yield* runTurn
        // The last running call just finished, silently: a quiet moment.
        if (turn === undefined && runningBefore > 0 && running.size === 0) yield* quiet
      })

    /**
     * A response to a NON_BLOCKING call joins the history at once. `willContinue: true` keeps the call running (more
     * responses follow); `scheduling` says whether the model speaks about it: SILENT never. True when it should.
     */
    const onRunningResponse = (entry: Running, response: GeminiWire.FunctionResponse): boolean => {
      const id = entry.call.id
      const final = response.willContinue !== true
      // Checked to be an object before it got here.
      const body = response.response as Json.JsonObject
      history.push({ role: "user", parts: [{ _tag: "FunctionResponse", id, name: entry.call.name, response: body, isError: isErrorResponse(body) }] })
      if (final) {
        running.delete(id)
        everAnswered.add(id)
        if (entry.dropAfter !== undefined && ![...running.values()].some((other) => other.turn === entry.turn)) dropping = entry.dropAfter
      }
      return response.scheduling !== "SILENT"
    }

    const onUserTurns = (turns: ReadonlyArray<Turn.Turn>, complete: boolean): Effect.Effect<void> =>
      Effect.gen(function* () {
        if (turns.length > 0) {
          yield* interrupt
          history.push(...turns)
        }
        const last = history[history.length - 1]
        if (complete && last !== undefined && last.role === "user" && Turn.responses(last).length === 0) yield* runTurn
      })

    const onSetup = (frame: Wire.Setup): Effect.Effect<void> =>
      Effect.gen(function* () {
        setup = frame
        record.setup = frame
        record.model = frame.model.replace(/^models\//, "")
        changed()
        if (!frame.model.startsWith("models/")) return yield* close(1008, `${frame.model} is not found for API version v1beta, or is not supported for bidiGenerateContent.`)
        // Live refuses the declarations REST refuses, with the generic reason its setup closes carry.
        if (declarationViolation(frame.tools ?? [], "BidiGenerateContentSetup") !== undefined) return yield* invalid(messages.invalidArgument)
        const faults = ctx.takeSetupFaults()
        append(record.faults, ...faults)
        const refusal = faults.find((fault) => fault._tag === "RefuseSetup")
        if (refusal !== undefined) return yield* close(refusal.code, refusal.reason)
        const handle = frame.sessionResumption?.handle
        if (handle !== undefined && handle !== "") {
          const restored = ctx.handles.resume(handle)
          if (restored === undefined) return yield* close(1008, "The session resumption handle is invalid or has expired.")
          history = [...restored]
          record.resumedFrom = handle
          changed()
        }
        for (const fault of faults) if (fault._tag === "FrameBeforeSetup") sendRaw(fault)
        const slow = faults.find((fault) => fault._tag === "SlowSetup")
        if (slow !== undefined) return yield* later(slow.delay, { _tag: "SetupDue" })
        yield* completeSetup
      })

    const completeSetup: Effect.Effect<void> = Effect.gen(function* () {
      yield* send({ setupComplete: {} })
      ready = true
      for (const input of backlog.splice(0)) yield* process(input)
    })

    const onFrame = (data: Buffer, binary: boolean): Effect.Effect<void> =>
      Effect.gen(function* () {
        const text = data.toString("utf8")
        const parsed = parse(text)
        if (Either.isLeft(parsed)) {
          keepReceived(text, text.length)
          return yield* invalid(`Invalid JSON payload received. ${parsed.left}${binary ? " (binary frame)" : ""}`)
        }
        keepReceived(parsed.right, text.length)
        changed()
        const frame = Wire.decodeFrame(parsed.right)
        if (Either.isLeft(frame)) return yield* invalid(frame.left)
        const message = frame.right
        if (setup === undefined && message._tag !== "setup") return yield* invalid("The first message of a session must be its setup.")
        switch (message._tag) {
          case "setup":
            return setup === undefined ? yield* onSetup(message.setup) : yield* invalid("A session is set up once: a second setup message is not allowed.")
          case "clientContent": {
            const contents = message.clientContent.turns ?? []
            if (contents.some((content) => content.role !== undefined && content.role !== "user" && content.role !== "model")) return yield* invalid(messages.role)
            const turns = toNeutral({ contents }).transcript
            return yield* onUserTurns(turns, message.clientContent.turnComplete ?? false)
          }
          case "realtimeInput":
            return message.realtimeInput.text === undefined ? undefined : yield* onUserTurns([Turn.user(message.realtimeInput.text)], true)
          case "toolResponse":
            return yield* onToolResponse(message.toolResponse)
          case "contextUpdate":
            return
        }
      })

    const process = (input: Input): Effect.Effect<void> => {
      switch (input._tag) {
        case "Frame":
          // Frames that arrive before a delayed `setupComplete` wait for it, as they would on the real server.
          if (setup !== undefined && !ready) return Effect.sync(() => void backlog.push(input))
          return onFrame(input.data, input.binary)
        case "SetupDue":
          return completeSetup
        case "SetupOverdue":
          return setup === undefined ? close(1011, setupOverdue) : Effect.void
        case "CancelDue":
          return Effect.suspend(() => {
            const turn = pending !== undefined && pending.turn === input.turn ? pending : undefined
            return Effect.zipRight(cancel(turn, input.turn), turn === undefined ? Effect.void : finishCalls(turn))
          })
        case "CloseDue":
          return close(input.code, input.reason)
        case "ClientClosed":
          return Effect.sync(() => {
            if (record.closed === undefined) record.closed = { code: input.code, reason: input.reason, by: "client" }
            changed()
          })
      }
    }

    // A connection that never sends its setup would otherwise be held open (and its buffers with it) for good.
    yield* later(ctx.setupTimeout, { _tag: "SetupOverdue" })
    while (true) {
      const input = yield* Queue.take(inputs)
      // Stryker disable next-line ConditionalExpression,StringLiteral: returning ends the connection's timers now rather than with the emulator; no input is read after the close either way
      if (input._tag === "ClientClosed") return yield* process(input)
      if (record.closed !== undefined) continue
      yield* process(input)
    }
  }).pipe(Effect.scoped)
