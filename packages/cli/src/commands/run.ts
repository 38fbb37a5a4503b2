import { Agent, Approval, LanguageModel, Transcript } from "@agentfx/core"
import { Args, Command, Options } from "@effect/cli"
import type * as FileSystem from "@effect/platform/FileSystem"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as Builtins from "../Builtins.js"
import { UsageError } from "../CliError.js"
import { Io } from "../Io.js"
import type * as Provider from "../Provider.js"
import * as Screen from "../Screen.js"
import * as TerminalApproval from "../TerminalApproval.js"
import { untilInterrupted } from "../internal/untilInterrupted.js"
import { runFailed, withModel } from "../internal/withModel.js"
import * as options from "../internal/options.js"

const prompt = Args.text({ name: "prompt" }).pipe(
  Args.withDescription("The message to the model (several words are joined with spaces)."),
  Args.atLeast(1)
)

const json = Options.boolean("json").pipe(
  Options.withDescription(
    "Print the result as JSON (text, calls, stop reason, usage, transcript) instead of streaming it. Non-interactive: tools that need approval are refused unless --yes."
  )
)

/** The result as `--json` prints it. */
export interface RunJson {
  readonly provider: string
  readonly model: string
  readonly text: string
  readonly turns: number
  readonly stopReason: Agent.StopReason
  readonly usage: LanguageModel.Usage
  readonly calls: ReadonlyArray<{
    readonly id: string
    readonly name: string
    readonly args: unknown
    readonly turn: number
    readonly durationMs: number
    readonly isError: boolean
    readonly response: unknown
  }>
  readonly transcript: unknown
}

export const toJson = (result: Agent.AgentResult, provider: string, model: LanguageModel.Service): RunJson => ({
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
  transcript: Schema.encodeSync(Transcript.Transcript)(result.transcript)
})

/** `--json` runs without a terminal to ask in. */
const refuseWithoutYes = Approval.layer(() =>
  Effect.succeed(Approval.denied("agentfx run --json does not ask for approval: pass --yes to allow tools that need it"))
)

export const command = Command.make("run", { prompt, ...options.agent, json }, (args) =>
  Effect.gen(function* () {
    const io = yield* Io
    const text = args.prompt.join(" ").trim()
    if (text === "") return yield* Effect.fail(new UsageError({ message: "the prompt is empty" }))
    const registry = Builtins.registry({ root: args.root, allowHosts: args.allowHost, approval: !args.yes })
    const agentOptions: Agent.Options<FileSystem.FileSystem> = {
      registry,
      prompt: text,
      system: Option.getOrUndefined(args.system),
      maxTurns: Option.getOrUndefined(args.maxTurns),
      concurrency: Option.getOrUndefined(args.concurrency)
    }
    const body = (choice: Provider.Choice) => args.json
      ? Effect.gen(function* () {
          const result = yield* Agent.run(agentOptions)
          const model = yield* LanguageModel.LanguageModel
          yield* io.out(`${JSON.stringify(toJson(result, choice.name, model), null, 2)}\n`)
        }).pipe(Effect.provide(args.yes ? Approval.allowAll : refuseWithoutYes))
      : Effect.gen(function* () {
          const screen = Screen.make(io, { askedFor: args.yes ? undefined : TerminalApproval.asksFor(registry) })
          yield* Agent.stream(agentOptions).pipe(
            Stream.runForEach(screen.event),
            Effect.provide(args.yes ? Approval.allowAll : TerminalApproval.layer(screen))
          )
        })
    yield* untilInterrupted(withModel(args.provider, options.settings(args), (choice) => Effect.mapError(body(choice), runFailed)))
  })
).pipe(
  Command.withDescription(
    "One agent run with the built-in tools (clock, calculator, read_file and list_dir under --root, fetch_url for --allow-host hosts): tool calls are shown as they start (→) and finish (←) and the answer is streamed. Which provider is used is printed on stderr."
  )
)
