/** `agentfx runs`: the store's durable runs — list, show, resume, approve, cancel. */
import { Approval } from "@agentfx/core"
import { DurableAgent } from "@agentfx/durable"
import * as Effect from "effect/Effect"
import type * as Argv from "../Argv.js"
import { UsageError } from "../CliError.js"
import type { Handler } from "../commands/Command.js"
import { actions } from "../commands/runs.js"
import { Io } from "../Io.js"
import * as AgentOptions from "../internal/agentOptions.js"
import * as Durable from "../internal/durable.js"
import { untilInterrupted } from "../internal/untilInterrupted.js"
import { withModel } from "../internal/withModel.js"

const arity: Readonly<Record<(typeof actions)[number], number>> = { list: 0, show: 1, resume: 1, approve: 2, cancel: 1 }

const when = (epoch: number): string => new Date(epoch).toISOString().replace("T", " ").slice(0, 19)

export const handler: Handler = ({ args, options }) =>
  Effect.mapError(runs(args, options), Durable.toCli)

const runs = (args: ReadonlyArray<string>, options: Argv.Values) =>
  Effect.gen(function* () {
    const io = yield* Io
    const [action, ...rest] = args
    if (!(actions as ReadonlyArray<string | undefined>).includes(action)) {
      return yield* Effect.fail(new UsageError({ message: `agentfx runs ${action}: the action is one of ${actions.join(", ")}` }))
    }
    const verb = action as (typeof actions)[number]
    if (rest.length !== arity[verb]) {
      const usage = { list: "runs list", show: "runs show ID", resume: "runs resume ID", approve: "runs approve ID CALL", cancel: "runs cancel ID" }[verb]
      // Stryker disable next-line EqualityOperator: the count here is never the action's, so < and <= agree
      return yield* Effect.fail(new UsageError({ message: `agentfx ${usage}: ${rest.length < arity[verb] ? "missing" : "too many"} arguments` }))
    }
    if (options.has("deny") && verb !== "approve") return yield* Effect.fail(new UsageError({ message: "--deny goes with runs approve" }))
    const where = options.text("store") ?? Durable.defaultStore
    const json = options.has("json")
    // Stryker disable next-line StringLiteral: each action but list has its run id (the count is checked above); list reads none
    const runId = rest[0] ?? ""

    switch (verb) {
      case "list":
        return yield* Durable.withStore(
          where,
          Effect.gen(function* () {
            const runs = yield* DurableAgent.list
            if (json) return yield* io.out(`${JSON.stringify(runs, null, 2)}\n`)
            if (runs.length === 0) return yield* io.err(`no runs in ${Durable.shown(where)}\n`)
            for (const run of runs) yield* io.out(`${run.runId}\t${run.state}\t${run.agent}\t${when(run.updatedAt)}\n`)
          })
        )
      case "show":
        return yield* Durable.withStore(
          where,
          Effect.gen(function* () {
            const status = yield* DurableAgent.status(runId)
            const events = yield* DurableAgent.events(runId)
            if (json) return yield* io.out(`${JSON.stringify({ ...Durable.statusJson(status), events }, null, 2)}\n`)
            yield* io.out(`${status.runId}\t${status._tag}\t${status.agent}\tcreated ${when(status.createdAt)}\tupdated ${when(status.updatedAt)}\n`)
            if (status._tag === "Waiting") for (const call of status.pending) yield* io.out(`waits for approval: ${call.callId} ${call.name}(${JSON.stringify(call.args)})\n`)
            for (const { event, offset } of events) yield* io.out(`${offset}\t${event._tag}\t${JSON.stringify({ ...event, _tag: undefined })}\n`)
          })
        )
      case "cancel":
        return yield* Durable.withEngine(
          where,
          Effect.gen(function* () {
            yield* DurableAgent.cancel(runId)
            // A run that had already ended is left as it was: saying it was cancelled would be false.
            const { _tag } = yield* DurableAgent.status(runId)
            yield* io.err(_tag === "Cancelled" ? `run ${runId} cancelled\n` : `run ${runId} had already ended (${_tag}): it keeps its outcome\n`)
          })
        )
      case "resume":
      case "approve": {
        const agentArgs = yield* AgentOptions.read(options)
        const agent = Durable.agent(agentArgs)
        // Stryker disable next-line StringLiteral: approve has its call id (the count is checked above); resume reads none
        const callId = rest[1] ?? ""
        const reason = options.text("deny")
        const decide =
          verb === "approve" ? DurableAgent.approve(runId, callId, reason === undefined ? Approval.approved : Approval.denied(reason)) : Effect.void
        return yield* untilInterrupted(
          withModel(agentArgs.provider, agentArgs.settings, () =>
            Durable.withAgent(where, agent, Effect.zipRight(decide, Effect.flatMap(Durable.settled(runId), (status) => Durable.report(status, json))))
          )
        )
      }
    }
  })
