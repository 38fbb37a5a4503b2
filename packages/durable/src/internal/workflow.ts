/**
 * A durable agent's workflow: core's loop, run with its model attempts and its tool calls as Activities keyed by
 * turn, attempt and call id, its retry waits on the durable clock, and its approvals as durable deferreds. The loop
 * is core's; this module only says how each step is recorded, and writes the run's events and outcome as it goes.
 */
import type { Agent, FunctionCall, LanguageModel, Registry, Tool } from "@agentfx/core"
import { Approval, ModelError, Turn } from "@agentfx/core"
import * as Loop from "@agentfx/core/loop"
import * as Activity from "@effect/workflow/Activity"
import * as DurableClock from "@effect/workflow/DurableClock"
import * as DurableDeferred from "@effect/workflow/DurableDeferred"
import * as Workflow from "@effect/workflow/Workflow"
import type { WorkflowEngine } from "@effect/workflow/WorkflowEngine"
import { WorkflowInstance } from "@effect/workflow/WorkflowEngine"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type { Options as Definition } from "../DurableAgent.js"
import type * as RunEvent from "../RunEvent.js"
import { RunStore } from "../RunStore.js"
import * as Schemas from "./schemas.js"

/** The workflow of the agent named `name`: its payload, result and error Schemas, keyed by the run id. */
export const workflowOf = (name: string): Workflow.Workflow<string, Schema.Struct<typeof Schemas.Payload>, typeof Schemas.AgentResult, typeof Schemas.AgentError> =>
  Workflow.make({
    name: `agentfx/${name}`,
    payload: Schemas.Payload,
    success: Schemas.AgentResult,
    error: Schemas.AgentError,
    idempotencyKey: ({ runId }) => runId
  })

/** The deferred a call's approval arrives on. */
export const approvalOf = (callId: string) => DurableDeferred.make(`approval/${callId}`, { success: Schemas.Decision })

/** The answer a non-idempotent call gets when a crash interrupted it. */
export const interruptedCall = {
  cause: {
    type: "InterruptedCall",
    message: "the call was interrupted before it finished (the process running it stopped); its tool is not idempotent, so it was not run again"
  },
  defect: false
} as const

const encodeResult = Schema.encodeSync(Schema.parseJson(Schemas.AgentResult))
const encodeError = Schema.encodeSync(Schema.parseJson(Schemas.AgentError))
const encodeDecision = Schema.encodeSync(Schema.parseJson(Schemas.Decision))

type Engine = WorkflowEngine | WorkflowInstance

/** A clock that reads the time as `real` does and sleeps on the durable clock: retry waits survive a restart. */
const durableClock = (real: Clock.Clock, inWorkflow: <A, E>(effect: Effect.Effect<A, E, Engine>) => Effect.Effect<A, E>): Clock.Clock => {
  let waits = 0
  return {
    [Clock.ClockTypeId]: Clock.ClockTypeId,
    unsafeCurrentTimeMillis: () => real.unsafeCurrentTimeMillis(),
    unsafeCurrentTimeNanos: () => real.unsafeCurrentTimeNanos(),
    currentTimeMillis: real.currentTimeMillis,
    currentTimeNanos: real.currentTimeNanos,
    // The n-th wait of a run has the same name on every replay, so a wait that was over is not waited again.
    // A short wait is an activity that sleeps: on the real clock, not on this one again.
    sleep: (duration) => Effect.suspend(() => Effect.withClock(inWorkflow(DurableClock.sleep({ name: `retry/${++waits}`, duration })), real))
  }
}

/** The body of the agent's workflow: one run, from its payload. */
export const body = <R>(definition: Definition<R>) => (payload: Schema.Struct.Type<typeof Schemas.Payload>): Effect.Effect<Agent.AgentResult, Agent.AgentError, RunStore | Engine | LanguageModel.LanguageModel | R> =>
  Effect.gen(function* () {
    const store = yield* RunStore
    const context = yield* Effect.context<Engine>()
    const real = yield* Effect.clock
    const inWorkflow = <A, E>(effect: Effect.Effect<A, E, Engine>): Effect.Effect<A, E> => Effect.provide(effect, context)
    const runId = payload.runId
    // A run cancelled while a step was under way (the canceller interrupts the workflow, but a model call or a tool
    // in flight finishes) stops at the step's end: nothing of it is recorded, and no step follows. The workflow is
    // interrupted for good, as the engine interrupts a cancelled run that waits: its run ends, and is not resumed.
    const instance = yield* WorkflowInstance
    const root = yield* Effect.withFiberRuntime<Fiber.RuntimeFiber<unknown, unknown>>((fiber) => Effect.succeed(fiber))
    const stop = Effect.suspend(() => {
      instance.interrupted = true
      // The whole run, from wherever the step ends (a call's fiber too); this fiber is interrupted with it.
      return Effect.zipRight(Fiber.interruptFork(root), Effect.never)
    })
    const stopIfCancelled = Effect.flatMap(Effect.orDie(store.get(runId)), (row) => (row?.state === "cancelled" ? stop : Effect.void))
    // The store appends nothing after a Done: an event refused is a run that ended — cancelled, it stops here; a
    // finished one is a run replayed after a crash, which goes on to its recorded result.
    const record = (key: string, event: RunEvent.RunEvent) =>
      Effect.flatMap(Effect.orDie(store.append(runId, key, event)), (appended) => (appended ? Effect.void : stopIfCancelled))
    const nonIdempotent = new Set(definition.nonIdempotent ?? [])
    // What the latest model turn asked for: the turn and arguments of each call, for its events.
    let turn = 0
    let calls = new Map<string, FunctionCall.FunctionCall>()

    const hooks: Loop.Hooks = {
      attempt: (at, attempt, request) =>
        Effect.zipRight(
          stopIfCancelled,
          inWorkflow(
            Activity.make({ name: `turn/${at}/attempt/${attempt}`, success: Schemas.Response, error: ModelError.ModelError, execute: request })
          ).pipe(
            Effect.tap((response) => {
              turn = at
              const asked = Turn.calls(response.turn)
              calls = new Map(asked.map((call) => [call.id, call]))
              return record(`turn/${at}`, {
                _tag: "TurnFinished",
                turn: at,
                text: Turn.text(response.turn),
                calls: asked.map(({ args, id, name }) => ({ id, name, args })),
                usage: response.usage
              })
            })
          )
        ),
      retryClock: durableClock(real, inWorkflow)
    }

    const wrap = <T extends Tool.Tool<R>>(tool: T): Tool.Tool<R> => ({
      ...tool,
      run: (args, call) =>
        Effect.gen(function* () {
          const asked = calls.get(call.callId)
          yield* record(`call/${call.callId}/started`, { _tag: "CallStarted", turn, call: { id: call.callId, name: call.name, args: asked?.args ?? {} } })
          const handler = nonIdempotent.has(tool.name)
            ? Effect.flatMap(Effect.orDie(store.start(runId, call.callId)), (fresh) => (fresh ? tool.run(args, call) : Effect.fail(interruptedCall)))
            : tool.run(args, call)
          return yield* Activity.make({ name: `call/${call.callId}`, success: Schema.Unknown, error: Schemas.HandlerFailure, execute: handler }).pipe(Effect.provide(context))
        })
    })
    const registry = wrapRegistry(definition.registry, wrap)

    const timeout = definition.approvalTimeout === undefined ? undefined : Duration.decode(definition.approvalTimeout)
    const approval: Approval.Approval["Type"] = {
      approve: ({ call, description }) =>
        inWorkflow(
          Effect.gen(function* () {
            const deadline = timeout === undefined ? null : real.unsafeCurrentTimeMillis() + Duration.toMillis(timeout)
            yield* Effect.orDie(store.request(runId, { callId: call.id, name: call.name, args: call.args, description, deadline }))
            yield* record(`approval/${call.id}`, { _tag: "ApprovalRequested", call: { id: call.id, name: call.name, args: call.args }, description, deadline })
            const decided = DurableDeferred.await(approvalOf(call.id))
            const decision: Approval.Decision =
              timeout === undefined
                ? yield* decided
                : yield* Effect.race(
                    decided,
                    Effect.as(
                      // Always on the store's clock (never an in-memory wait): the deadline holds while no process runs.
                      DurableClock.sleep({ name: `approval/${call.id}`, duration: timeout, inMemoryThreshold: Duration.zero }),
                      Approval.denied(`timed out: no decision within ${Duration.format(timeout)}`)
                    )
                  )
            yield* Effect.orDie(store.decide(runId, call.id, encodeDecision(decision)))
            yield* record(`approval/${call.id}/decided`, {
              _tag: "ApprovalDecided",
              callId: call.id,
              approved: decision.approved,
              reason: decision.approved ? null : decision.reason
            })
            return decision
          })
        )
    }

    const { approvalTimeout: _, nonIdempotent: __, ...options } = definition
    const onCallFinished = options.onCallFinished
    return yield* Loop.run(
      {
        ...options,
        registry,
        prompt: payload.prompt,
        history: payload.history,
        onCallFinished: (finished) =>
          Effect.zipRight(
            record(`call/${finished.id}/finished`, { _tag: "CallFinished", turn: finished.turn, response: finished.response }),
            onCallFinished === undefined ? Effect.void : onCallFinished(finished)
          )
      },
      hooks
    ).pipe(
      Effect.provideService(Approval.Approval, approval),
      Effect.onExit((exit) =>
        Exit.match(exit, {
          // Done only with the outcome the run has: one cancelled meanwhile keeps its Done(cancelled).
          onSuccess: (result) =>
            Effect.flatMap(Effect.orDie(store.settle(runId, "finished", encodeResult(result))), (settled) =>
              settled ? Effect.orDie(store.append(runId, "done", { _tag: "Done", outcome: "finished", text: result.text })) : Effect.void
            ),
          // A run that suspends (an approval, a long wait) is interrupted, not failed: it has no outcome yet.
          onFailure: (cause) =>
            Option.match(Cause.failureOption(cause), {
              onNone: () => Effect.void,
              onSome: (error) =>
                Effect.flatMap(Effect.orDie(store.settle(runId, "failed", encodeError(error))), (settled) =>
                  settled ? Effect.orDie(store.append(runId, "done", { _tag: "Done", outcome: "failed", text: error.message })) : Effect.void
                )
            })
        })
      )
    )
  })

/** The registry with each tool's handler wrapped; a dynamic registry's later tools are wrapped as they come. */
const wrapRegistry = <R>(registry: Registry.Registry<R>, wrap: (tool: Tool.Tool<R>) => Tool.Tool<R>): Registry.Registry<R> => {
  const wrapped = (from: Registry.Registry<R>): Registry.Registry<R> => ({
    ...from,
    tools: new Map(Array.from(from.tools, ([name, tool]) => [name, wrap(tool)]))
  })
  const source = registry.source
  return source === undefined ? wrapped(registry) : { ...wrapped(registry), source: { version: source.version, current: Effect.map(source.current, wrapped) } }
}
