/** `agentfx run`: one agent run, streamed (or `--json`). */
import { Agent, Approval, LanguageModel, Transcript } from "@agentfx/core"
import type * as FileSystem from "@effect/platform/FileSystem"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as Builtins from "../Builtins.js"
import type * as Argv from "../Argv.js"
import { UsageError } from "../CliError.js"
import type { Handler } from "../commands/Command.js"
import { Io } from "../Io.js"
import type * as Provider from "../Provider.js"
import type * as RunContract from "../contracts/run.js"
import * as Screen from "../Screen.js"
import * as TerminalApproval from "../TerminalApproval.js"
import * as AgentOptions from "../internal/agentOptions.js"
import * as McpTools from "../internal/mcpTools.js"
import * as OutputSchema from "../internal/outputSchema.js"
import { untilInterrupted } from "../internal/untilInterrupted.js"
import { runFailed, withModel } from "../internal/withModel.js"

/** The result as `--json` prints it: the contract `Contracts.Run.Run` (contracts/run.ts). */
export type RunJson = typeof RunContract.Run.Encoded

export const toJson = (result: Agent.AgentResult, provider: Provider.Name, model: LanguageModel.Service): RunJson => ({
  provider,
  model: model.model,
  text: result.text,
  turns: result.turns,
  stopReason: result.stopReason,
  usage: result.usage,
  calls: result.calls.map((call) => ({
    id: call.id,
    name: call.name,
    args: call.args,
    turn: call.turn,
    durationMs: Math.round(Duration.toMillis(call.duration)),
    isError: call.response.isError,
    response: call.response.response
  })),
  transcript: Schema.encodeSync(Transcript.Transcript)(result.transcript),
  ...(result.output === undefined ? {} : { output: result.output })
})

/** `--json` runs without a terminal to ask in. */
const refuseWithoutYes = Approval.layer(() =>
  Effect.succeed(Approval.denied("agentfx run --json does not ask for approval: pass --yes to allow tools that need it"))
)

/** `--durable`: the durable engine is loaded for it alone, never on the plain run's path. */
const durable = (text: string, options: Argv.Values, args: AgentOptions.AgentArgs, json: boolean) =>
  Effect.gen(function* () {
    if (options.has("mcp") || options.has("mcp-url") || options.has("scenario")) {
      return yield* Effect.fail(new UsageError({ message: "--durable runs take the built-in tools only: not with --mcp, --mcp-url or --scenario" }))
    }
    // A durable run records its turns and results as text; a typed final answer is not among what it records.
    if (options.has("output-schema")) return yield* Effect.fail(new UsageError({ message: "--durable runs give a text answer: not with --output-schema" }))
    const Durable = yield* Effect.promise(() => import("../internal/durable.js"))
    const runId = options.text("run-id") ?? `run-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`
    const where = options.text("store") ?? Durable.defaultStore
    yield* untilInterrupted(withModel(args.provider, args.settings, () => Durable.run(text, runId, where, args, json)))
  })

export const handler: Handler = ({ options, args: words }) =>
  // From the start: Ctrl-C while MCP servers start or the scenario loads stops the run too (exit 130).
  Effect.scoped(untilInterrupted(Effect.gen(function* () {
    const io = yield* Io
    const text = words.join(" ").trim()
    if (text === "") return yield* Effect.fail(new UsageError({ message: "the prompt is empty" }))
    const args = yield* AgentOptions.read(options)
    const outputFile = options.text("output-schema")
    const fromFile = outputFile === undefined ? undefined : yield* OutputSchema.read(outputFile)
    const json = options.has("json")
    if (options.has("durable")) return yield* durable(text, options, args, json)
    const builtins = Builtins.tools({ root: args.root, allowHosts: args.allowHost, approval: !args.yes })
    // --json asks nobody: a scenario's programs start there only with --allow-scenario-commands.
    const scenario = yield* McpTools.scenario(options, builtins, !json, "run")
    const registry = scenario === undefined ? yield* McpTools.registry(options, builtins) : scenario.registry
    // --output-schema, else the scenario's output_schema.
    const output = fromFile ?? scenario?.output
    const agentOptions: Agent.Options<FileSystem.FileSystem> = {
      registry,
      prompt: text,
      system: args.system ?? scenario?.instructions,
      maxTurns: args.maxTurns,
      concurrency: args.concurrency,
      ...(output === undefined ? {} : { output }),
      ...args.request
    }
    const body = (choice: Provider.Choice) =>
      json
        ? Effect.gen(function* () {
            // No screen to follow the run: each retry is still said on stderr, the same line the screen prints.
            const noted = (failed: Agent.AttemptFailed) => {
              const said = Screen.attemptText(failed)
              return said === undefined ? Effect.void : io.err(`${said}\n`)
            }
            const result = yield* Agent.run({ ...agentOptions, onAttemptFailed: noted })
            const model = yield* LanguageModel.LanguageModel
            yield* io.out(`${JSON.stringify(toJson(result, choice.name, model), null, 2)}\n`)
          }).pipe(Effect.provide(args.yes ? Approval.allowAll : refuseWithoutYes))
        : Effect.gen(function* () {
            const model = yield* LanguageModel.LanguageModel
            const screen = Screen.make(io, { askedFor: args.yes ? undefined : TerminalApproval.asksFor(registry), waitingFor: model.model })
            yield* Agent.stream(agentOptions).pipe(
              Stream.runForEach(screen.event),
              Effect.ensuring(screen.stopSpinner),
              Effect.provide(args.yes ? Approval.allowAll : TerminalApproval.layer(screen))
            )
          })
    yield* withModel(args.provider, args.settings, (choice) => Effect.mapError(body(choice), runFailed(choice)))
  })))
