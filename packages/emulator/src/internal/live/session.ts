/**
 * One Gemini Live connection, served: `setup` first and once (then `setupComplete`), user turns answered by the
 * policy (text a word at a time, then `generationComplete` and `turnComplete` with usage; or a `toolCall` whose
 * responses the server waits for), cancellations, `goAway`, resumption handles (empty while calls are outstanding)
 * and the resumption of a session's history. Strict like the real server: a frame it cannot read, a response to an
 * id it never asked, or a response that is not an object closes the connection with 1007 and the reason.
 *
 * Everything that happens to the connection (a client frame, a timer) is an input processed in order by one
 * fiber, so a response never races the turn it answers.
 */
import { Turn } from "@agentfx/core"
import type { FunctionCall, FunctionResponse } from "@agentfx/core"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Queue from "effect/Queue"
import type { RawData, WebSocket } from "ws"
import type * as Fault from "../../Fault.js"
import type * as Policy from "../../Policy.js"
import type { Decision } from "../answer.js"
import { pieces, policyRequest } from "../answer.js"
import { messages } from "../gemini/errors.js"
import { declarationsOf, textOf, toNeutral } from "../gemini/request.js"
import { isErrorResponse, isPlainObject, parse } from "../json.js"
import type { LiveRecord, LiveResponse } from "./record.js"
import * as Wire from "./wire.js"

type Mutable<T> = { -readonly [K in keyof T]: T[K] extends ReadonlyArray<infer A> ? Array<A> : T[K] }

/** Resumption handles: each stands for the history of a session at a quiet moment. */
export interface Handles {
  readonly issue: (history: ReadonlyArray<Turn.Turn>) => string
  readonly resume: (handle: string) => ReadonlyArray<Turn.Turn> | undefined
}

export interface Context {
  readonly frameDelay: number
  readonly decide: (request: Policy.Request, note: (faults: ReadonlyArray<Fault.Fault>) => void) => Effect.Effect<Decision>
  /** The faults injected for this connection's setup. */
  readonly takeSetupFaults: () => ReadonlyArray<Fault.Fault>
  /** A number for each model turn of every Live session (the policy request's index). */
  readonly nextTurn: () => number
  readonly handles: Handles
  /** Tells the emulator's waiters that the record changed. */
  readonly changed: () => void
}

export type MutableRecord = Mutable<LiveRecord>

type Input =
  | { readonly _tag: "Frame"; readonly data: RawData; readonly binary: boolean }
  | { readonly _tag: "SetupDue" }
  | { readonly _tag: "CancelDue"; readonly turn: number }
  | { readonly _tag: "CloseDue"; readonly code: number; readonly reason: string }
  | { readonly _tag: "ClientClosed"; readonly code: number; readonly reason: string }

interface Pending {
  readonly turn: number
  readonly calls: ReadonlyArray<FunctionCall.FunctionCall>
  readonly answers: Map<string, FunctionResponse.FunctionResponse>
  readonly cancelled: Set<string>
  readonly dropAfter: number | undefined
}

/** A WebSocket close reason is at most 123 bytes of UTF-8. */
const closeReason = (text: string): string => {
  let reason = text
  while (Buffer.byteLength(reason, "utf8") > 123) reason = reason.slice(0, -2)
  return reason
}

const timeLeftText = (duration: Duration.Duration): string => `${Number((Duration.toMillis(duration) / 1000).toFixed(3))}s`

const textOfFrame = (data: RawData): string =>
  Array.isArray(data) ? Buffer.concat(data).toString("utf8") : Buffer.isBuffer(data) ? data.toString("utf8") : Buffer.from(data).toString("utf8")

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
    socket.on("message", (data, binary) => Queue.unsafeOffer(inputs, { _tag: "Frame", data, binary }))
    socket.on("close", (code, reason) => Queue.unsafeOffer(inputs, { _tag: "ClientClosed", code, reason: reason.toString("utf8") }))
    socket.on("error", () => socket.terminate())
    const scope = yield* Effect.scope
    const later = (after: Duration.Duration, input: Input): Effect.Effect<void> =>
      Effect.asVoid(Effect.forkIn(Effect.zipRight(Effect.sleep(after), Queue.offer(inputs, input)), scope))

    let setup: Wire.Setup | undefined
    let ready = false
    const backlog: Array<Input> = []
    let history: Array<Turn.Turn> = []
    let pending: Pending | undefined
    const everAnswered = new Set<string>()
    const everCancelled = new Set<string>()

    const isOpen = () => record.closed === undefined && socket.readyState === socket.OPEN
    const changed = () => ctx.changed()

    const send = (frame: object): Effect.Effect<void> =>
      Effect.sync(() => {
        if (!isOpen()) return
        socket.send(JSON.stringify(frame))
        record.sent.push(frame)
      })

    const close = (code: number, reason: string): Effect.Effect<void> =>
      Effect.sync(() => {
        if (record.closed !== undefined) return
        record.closed = { code, reason, by: "server" }
        if (socket.readyState === socket.OPEN || socket.readyState === socket.CONNECTING) socket.close(code, closeReason(reason))
        changed()
      })

    const drop: Effect.Effect<void> = Effect.sync(() => {
      if (record.closed === undefined) record.closed = { code: 1006, reason: "dropped by the emulator", by: "server" }
      socket.terminate()
      changed()
    })

    const invalid = (reason: string) => close(1007, reason)

    const resumption = (handle: string | undefined): Effect.Effect<void> =>
      setup?.sessionResumption === undefined
        ? Effect.void
        : send({ sessionResumptionUpdate: handle === undefined ? { newHandle: "", resumable: false } : { newHandle: handle, resumable: true } })

    /** The turn is over and nothing is outstanding: a quiet moment, worth a handle. */
    const turnComplete = (usage: object | undefined) =>
      Effect.zipRight(
        send(usage === undefined ? { serverContent: { turnComplete: true } } : { serverContent: { turnComplete: true }, usageMetadata: usage }),
        Effect.suspend(() => resumption(ctx.handles.issue(history)))
      )

    const applyFault = (fault: Fault.AnswerFault): Effect.Effect<void> => {
      switch (fault._tag) {
        case "Stall":
          return Effect.void
        case "Disconnect":
          return drop
        case "Close":
          return close(fault.code, fault.reason)
        case "Unauthorized":
          return close(1008, messages.invalidKey)
        case "Status":
          return close(fault.status >= 500 ? 1011 : 1007, fault.message ?? "Request contains an invalid argument.")
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
        record.faults.push(...faults)
        changed()
      })
      if (decision._tag === "Fault") return yield* applyFault(decision.fault)
      if (decision._tag === "Error") {
        const error = decision.error
        return yield* close(error._tag === "InvalidRequest" ? 1007 : error._tag === "Unauthorized" ? 1008 : 1011, error.message)
      }
      const { answer, faults } = decision
      for (const fault of faults) {
        if (fault._tag === "RawFrame" && isOpen()) {
          socket.send(fault.binary ? Buffer.from(fault.data, "utf8") : fault.data, { binary: fault.binary })
          record.sent.push(fault.data)
        }
      }
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
        yield* resumption(undefined)
        const cancel = faults.find((fault) => fault._tag === "CancelCalls")
        const dropAfter = faults.find((fault) => fault._tag === "DropAfterResponses")
        pending = { turn: index, calls, answers: new Map(), cancelled: new Set(), dropAfter: dropAfter?.code }
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

    const resolved = (turn: Pending) => turn.calls.every((call) => turn.answers.has(call.id) || turn.cancelled.has(call.id))

    /** Every call of the turn is answered or cancelled: record the responses, then go on (or stop, or drop). */
    const finishCalls = (turn: Pending): Effect.Effect<void> =>
      Effect.suspend(() => {
        pending = undefined
        history.push({ role: "user", parts: turn.calls.map((call) => turn.answers.get(call.id) ?? cancelledResponse(call)) })
        if (turn.dropAfter !== undefined) return close(turn.dropAfter, "Internal error encountered.")
        if (turn.answers.size === 0) return Effect.zipRight(send({ serverContent: { interrupted: true } }), turnComplete(undefined))
        return runTurn
      })

    const cancel = (turn: Pending): Effect.Effect<void> =>
      Effect.suspend(() => {
        const ids = turn.calls.map((call) => call.id).filter((id) => !turn.answers.has(id) && !turn.cancelled.has(id))
        if (ids.length === 0) return Effect.void
        for (const id of ids) {
          turn.cancelled.add(id)
          everCancelled.add(id)
          record.cancelled.push(id)
        }
        changed()
        return send({ toolCallCancellation: { ids } })
      })

    /** New user content while the model is busy interrupts it: outstanding calls are cancelled. */
    const interrupt: Effect.Effect<void> = Effect.suspend(() => {
      const turn = pending
      if (turn === undefined) return Effect.void
      pending = undefined
      return cancel(turn).pipe(
        Effect.zipRight(Effect.sync(() => history.push({ role: "user", parts: turn.calls.map((call) => turn.answers.get(call.id) ?? cancelledResponse(call)) }))),
        Effect.zipRight(send({ serverContent: { interrupted: true } }))
      )
    })

    const onToolResponse = (toolResponse: Wire.ToolResponse): Effect.Effect<void> =>
      Effect.gen(function* () {
        const responses = toolResponse.functionResponses ?? []
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
          record.responses.push(recorded)
          changed()
          const turn = pending
          const call = turn?.calls.find((candidate) => candidate.id === response.id)
          if (turn === undefined || call === undefined) {
            if (everCancelled.has(response.id)) record.violations.push(`the cancelled call "${response.id}" was answered`)
            else if (everAnswered.has(response.id)) record.violations.push(`the call "${response.id}" was answered twice`)
            else return yield* invalid(`Function response id "${response.id}" does not match any outstanding function call.`)
            continue
          }
          if (turn.cancelled.has(call.id)) {
            record.violations.push(`the cancelled call "${call.id}" was answered`)
            continue
          }
          if (turn.answers.has(call.id)) {
            record.violations.push(`the call "${call.id}" was answered twice`)
            continue
          }
          everAnswered.add(call.id)
          turn.answers.set(call.id, { _tag: "FunctionResponse", id: call.id, name: call.name, response: response.response, isError: isErrorResponse(response.response) })
        }
        const turn = pending
        if (turn !== undefined && resolved(turn)) yield* finishCalls(turn)
      })

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
        const faults = ctx.takeSetupFaults()
        record.faults.push(...faults)
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
        const slow = faults.find((fault) => fault._tag === "SlowSetup")
        if (slow !== undefined) return yield* later(slow.delay, { _tag: "SetupDue" })
        yield* completeSetup
      })

    const completeSetup: Effect.Effect<void> = Effect.gen(function* () {
      yield* send({ setupComplete: {} })
      ready = true
      for (const input of backlog.splice(0)) yield* process(input)
    })

    const onFrame = (data: RawData, binary: boolean): Effect.Effect<void> =>
      Effect.gen(function* () {
        const text = textOfFrame(data)
        const parsed = parse(text)
        if (Either.isLeft(parsed)) {
          record.received.push(text)
          return yield* invalid(`Invalid JSON payload received. ${parsed.left}${binary ? " (binary frame)" : ""}`)
        }
        record.received.push(parsed.right)
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
        case "CancelDue":
          return Effect.suspend(() => {
            const turn = pending
            if (turn === undefined || turn.turn !== input.turn) return Effect.void
            return Effect.zipRight(cancel(turn), Effect.suspend(() => (resolved(turn) ? finishCalls(turn) : Effect.void)))
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

    while (true) {
      const input = yield* Queue.take(inputs)
      if (input._tag === "ClientClosed") return yield* process(input)
      if (record.closed !== undefined) continue
      yield* process(input)
    }
  }).pipe(Effect.scoped)
