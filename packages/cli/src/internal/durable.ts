/**
 * The durable side of the command line (`run --durable`, `runs …`): the store `--store` names (a SQLite file, by
 * default .agentfx/runs.db, or a postgres:// URL), the command line's durable agent (the built-in tools, as `run`
 * has them), and a run followed to its end or to the approval it waits for. Loaded only by those commands: the
 * durable engine stays out of the others' start-up.
 */
import type { Agent, LanguageModel } from "@agentfx/core"
import { Registry } from "@agentfx/core"
import * as HttpUrl from "@agentfx/core/HttpUrl"
import { DurableAgent, DurableError, type RunStatus, type RunStore } from "@agentfx/durable"
import type { SqlClient } from "@effect/sql/SqlClient"
import type { WorkflowEngine } from "@effect/workflow/WorkflowEngine"
import type * as FileSystem from "@effect/platform/FileSystem"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { type AddressInfo, createServer } from "node:net"
import * as Builtins from "../Builtins.js"
import type { CliError } from "../CliError.js"
import { RunFailed, UsageError } from "../CliError.js"
import { Io } from "../Io.js"
import type * as RunsContract from "../contracts/runs.js"
import type { AgentArgs } from "./agentOptions.js"
import { describeAgentError } from "./withModel.js"

export { defaultStore } from "../commands/runs.js"

/** The name the command line's runs are stored under. */
export const agentName = "agentfx"

const isUrl = (store: string): boolean => /^postgres(ql)?:\/\//.test(store)

/** The store as a message names it: a URL without its user name and password (a path as it is). */
export const shown = (where: string): string => HttpUrl.redact(where)

/** A free local port: a PostgreSQL runner listens for the others there. */
const freePort = Effect.async<number>((resume) => {
  const server = createServer()
  // Stryker disable next-line StringLiteral: a port free on every interface ("") is free on 127.0.0.1 as well
  server.listen(0, "127.0.0.1", () => {
    // A server listening on TCP has an address with a port (only one on a pipe has a string).
    const { port } = server.address() as AddressInfo
    server.close(() => resume(Effect.succeed(port)))
  })
})

/** The store's layer: SQLite at a path, or PostgreSQL (this process a runner on a free local port). */
type Store = Layer.Layer<WorkflowEngine | RunStore.RunStore | SqlClient, DurableError.StoreUnavailable | DurableError.StoreBusy>

export const store = (where: string): Effect.Effect<Store> =>
  isUrl(where)
    ? Effect.map(freePort, (port) => DurableAgent.layerPg({ url: where, runner: { host: "127.0.0.1", port } }))
    : Effect.succeed(DurableAgent.layerSqlite({ filename: where }))

/** The command line's durable agent: the built-in tools as `run` has them; a call that needs approval parks the run. */
export const agent = (args: AgentArgs): DurableAgent.DurableAgent<FileSystem.FileSystem> =>
  DurableAgent.make(agentName, {
    registry: Registry.unsafeMake(...Builtins.tools({ root: args.root, allowHosts: args.allowHost, approval: !args.yes })),
    system: args.system,
    maxTurns: args.maxTurns,
    concurrency: args.concurrency,
    ...args.request
  })

/** What the durable side can fail with besides the command's own errors. */
export type Errors = DurableError.DurableError

/** A durable error as the command's: each is about the arguments, files or store (exit 2), nothing was run. */
export const usage = (error: DurableError.DurableError): UsageError => new UsageError({ message: error.message })

/** The command's error: a durable one worded as a usage error, any other as it is. */
export const toCli = <E extends CliError>(error: E | DurableError.DurableError): E | UsageError => (DurableError.isDurableError(error) ? usage(error) : error)

/** Where a run stands once it no longer runs: ended, or waiting for a decision. */
export type Settled = Exclude<RunStatus.RunStatus, { readonly _tag: "Running" }>

/** Waits until the run ends or waits for a decision, polling its status. */
export const settled = (runId: string): Effect.Effect<Settled, DurableError.UnknownRun | DurableError.StoreUnavailable, RunStore.RunStore> =>
  Effect.gen(function* () {
    for (;;) {
      const status = yield* DurableAgent.status(runId)
      if (status._tag !== "Running") return status
      yield* Effect.sleep("50 millis")
    }
  })

/** A result's calls and answer, as `run` shows them. */
const showResult = (result: Agent.AgentResult): string =>
  [
    ...result.calls.flatMap((call) => [`→ ${call.name}(${JSON.stringify(call.args)})`, `← ${call.name}${call.response.isError ? " failed" : ""}: ${JSON.stringify(call.response.response)}`]),
    result.text
  ].join("\n") + "\n"

/** A status as `--json` prints it: the contract `Contracts.Runs.Outcome` (contracts/runs.ts). */
export const statusJson = (status: RunStatus.RunStatus): typeof RunsContract.Outcome.Encoded => {
  const summary = { runId: status.runId, agent: status.agent, createdAt: status.createdAt, updatedAt: status.updatedAt }
  switch (status._tag) {
    case "Finished": {
      const { result } = status
      return {
        runId: status.runId,
        state: status._tag,
        text: result.text,
        turns: result.turns,
        stopReason: result.stopReason,
        usage: result.usage,
        calls: result.calls.map((call) => ({ id: call.id, name: call.name, args: call.args, turn: call.turn, isError: call.response.isError, response: call.response.response }))
      }
    }
    case "Failed":
      return { runId: status.runId, state: status._tag, error: { type: status.error._tag, message: status.error.message } }
    case "Waiting":
      return { state: status._tag, ...summary, pending: status.pending }
    case "Running":
    case "Cancelled":
      return { state: status._tag, ...summary }
  }
}

/**
 * Prints where a run ended up: its calls and answer (exit 0), the calls it waits for and how to decide them (exit 0:
 * it is parked, not failed), or why it failed or was cancelled (exit 1).
 */
export const report = (status: Settled, asJson: boolean) =>
  Effect.gen(function* () {
    const io = yield* Io
    if (asJson) yield* io.out(`${JSON.stringify(statusJson(status), null, 2)}\n`)
    switch (status._tag) {
      case "Finished":
        if (!asJson) yield* io.out(showResult(status.result))
        return
      case "Waiting":
        for (const call of status.pending) {
          yield* io.err(
            `run ${status.runId} waits for approval of ${call.name}(${JSON.stringify(call.args)}): agentfx runs approve ${status.runId} ${call.callId} (or --deny REASON)\n`
          )
        }
        return
      case "Failed":
        return yield* Effect.fail(new RunFailed({ message: `run ${status.runId} failed: ${describeAgentError(status.error)}` }))
      case "Cancelled":
        return yield* Effect.fail(new RunFailed({ message: `run ${status.runId} was cancelled` }))
    }
  })

/** Runs `body` on the store, the agent registered (this process runs and resumes the store's runs of it). */
export const withAgent = <A, E, R>(
  where: string,
  durable: DurableAgent.DurableAgent<FileSystem.FileSystem>,
  body: Effect.Effect<A, E, R>
): Effect.Effect<A, E | DurableError.StoreUnavailable | DurableError.StoreBusy, Exclude<R, WorkflowEngine | RunStore.RunStore | SqlClient> | FileSystem.FileSystem | LanguageModel.LanguageModel> =>
  Effect.flatMap(store(where), (layer) => Effect.provide(body, Layer.provideMerge(durable.layer, layer)))

/** Runs `body` on the store with its engine, no agent registered: to cancel a run. */
export const withEngine = <A, E, R>(
  where: string,
  body: Effect.Effect<A, E, R>
): Effect.Effect<A, E | DurableError.StoreUnavailable | DurableError.StoreBusy, Exclude<R, WorkflowEngine | RunStore.RunStore | SqlClient>> =>
  Effect.flatMap(isUrl(where) ? Effect.succeed<Store>(DurableAgent.layerPg({ url: where, clientOnly: true })) : store(where), (layer) => Effect.provide(body, layer))

/** Runs `body` on the store alone: it reads runs (another process may be running them), and runs none. */
export const withStore = <A, E, R>(
  where: string,
  body: Effect.Effect<A, E, R>
): Effect.Effect<A, E | DurableError.StoreUnavailable, Exclude<R, RunStore.RunStore | SqlClient>> =>
  Effect.provide(body, isUrl(where) ? DurableAgent.layerPgReader({ url: where }) : DurableAgent.layerSqliteReader({ filename: where }))

/** `agentfx run --durable`: the prompt as a durable run under `runId`, followed to its end or its first approval. */
export const run = (prompt: string, runId: string, where: string, args: AgentArgs, asJson: boolean): Effect.Effect<void, CliError, Io | FileSystem.FileSystem | LanguageModel.LanguageModel> =>
  Effect.gen(function* () {
    const io = yield* Io
    const durable = agent(args)
    yield* io.err(`run ${runId} in ${shown(where)}\n`)
    return yield* withAgent(
      where,
      durable,
      Effect.gen(function* () {
        yield* durable.start({ runId, prompt })
        return yield* report(yield* settled(runId), asJson)
      })
    )
  }).pipe(Effect.mapError(toCli))
