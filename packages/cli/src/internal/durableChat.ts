/**
 * `agentfx chat --durable`: a chat whose every message is a durable run in the store (`SESSION/1`, `SESSION/2`, …,
 * each continuing the transcript of the last one that finished), so a chat killed mid-answer is resumed by the next
 * `chat --durable --session SESSION`: the unfinished message's run goes on where it stopped and its answer is shown
 * before the prompt. A call that needs approval asks here (y/N); the run waits in the store meanwhile.
 */
import type { LanguageModel, Transcript } from "@agentfx/core"
import { Approval } from "@agentfx/core"
import { DurableAgent, type RunStore } from "@agentfx/durable"
import type { WorkflowEngine } from "@effect/workflow/WorkflowEngine"
import type * as FileSystem from "@effect/platform/FileSystem"
import * as Effect from "effect/Effect"
import type { CliError } from "../CliError.js"
import { Io } from "../Io.js"
import type { AgentArgs } from "./agentOptions.js"
import * as Durable from "./durable.js"
import { promptLoop } from "./promptLoop.js"
import { describeAgentError } from "./withModel.js"

/** The message number of a run of `session`, or undefined for another run. */
const numberOf = (session: string, runId: string): number | undefined => {
  const match = new RegExp(`^${session.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}/(\\d+)$`).exec(runId)
  return match === null ? undefined : Number(match[1])
}

export const run = (session: string, where: string, args: AgentArgs): Effect.Effect<void, CliError, Io | FileSystem.FileSystem | LanguageModel.LanguageModel> =>
  Effect.gen(function* () {
    const io = yield* Io
    const agent = Durable.agent(args)
    yield* Durable.withAgent(
      where,
      agent,
      Effect.gen(function* () {
        const mine = (yield* DurableAgent.list)
          .map((listed) => ({ listed, n: numberOf(session, listed.runId) }))
          .filter((entry): entry is { listed: (typeof entry)["listed"]; n: number } => entry.n !== undefined)
          .sort((a, b) => a.n - b.n)
        let next = (mine.at(-1)?.n ?? 0) + 1
        let history: Transcript.Transcript = []
        for (const { listed } of mine) {
          const status = yield* DurableAgent.status(listed.runId)
          if (status._tag === "Finished") history = status.result.transcript
        }

        /** Follows a run to its end, asking here for each call that waits; the answer printed, the transcript kept. */
        const follow = (runId: string): Effect.Effect<void, CliError | Durable.Errors, RunStore.RunStore | WorkflowEngine> =>
          Effect.gen(function* () {
            for (;;) {
              const status: Durable.Settled = yield* Durable.settled(runId)
              if (status._tag === "Finished") {
                history = status.result.transcript
                return yield* io.out(`${status.result.text}\n`)
              }
              if (status._tag === "Failed") return yield* io.out(`error: ${describeAgentError(status.error)}\n`)
              if (status._tag === "Cancelled") return yield* io.out(`(run ${runId} was cancelled)\n`)
              for (const call of status.pending) {
                const answer = yield* io.readLine(`approve ${call.name}(${JSON.stringify(call.args)})? [y/N] `)
                const yes = answer._tag === "Line" && /^y(es)?$/i.test(answer.text.trim())
                yield* DurableAgent.approve(runId, call.callId, yes ? Approval.approved : Approval.denied("the user said no"))
              }
            }
          })

        yield* io.out(
          mine.length === 0
            ? `session ${session}: new, each message a durable run in ${Durable.shown(where)}\n`
            : `session ${session}: resumed from ${Durable.shown(where)} (${mine.length} message${mine.length === 1 ? "" : "s"})\n`
        )
        const last = mine.at(-1)
        if (last !== undefined && (last.listed.state === "Running" || last.listed.state === "Waiting")) {
          yield* io.out(`(resuming message ${last.n}, which a stopped chat left unanswered)\n`)
          yield* follow(last.listed.runId)
        }
        yield* promptLoop(io, "you> ", (line) =>
          line === "/exit"
            ? Effect.succeed(false)
            : Effect.gen(function* () {
                const runId = `${session}/${next++}`
                yield* agent.start({ runId, prompt: line, history })
                yield* follow(runId)
                return true
              })
        )
      })
    )
  }).pipe(Effect.mapError(Durable.toCli))
