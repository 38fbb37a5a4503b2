import { LanguageModel, Registry } from "@agentfx/core"
import { Cassette, EvalCase, EvalReport, EvalRunner, Scenario } from "@agentfx/tools"
import { Args, Command, Options } from "@effect/cli"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Builtins from "../Builtins.js"
import { BelowThreshold, InputError, OutputError } from "../CliError.js"
import { Io } from "../Io.js"
import * as Provider from "../Provider.js"
import { untilInterrupted } from "../internal/untilInterrupted.js"
import * as options from "../internal/options.js"

const casesDir = Args.directory({ name: "cases-dir", exists: "yes" }).pipe(
  Args.withDescription(
    `A directory of eval case files (*.yaml / *.yml, searched recursively). Offline, the emulator needs a script of what the model says: put each case's model turns under ${Cassette.field}, a list of steps ({ text: ... } or { calls: [{ name, args }] }) replayed by position. A case without one is answered by the offline rule model, which only handles plain requests for the built-in tools.`
  )
)

const scenariosDir = Options.directory("scenarios", { exists: "yes" }).pipe(
  Options.withDescription(
    `A directory of scenario files (Markdown with YAML front matter; README.md is skipped). The built-in tools (${Builtins.names.join(", ")}) run for real unless a case mocks them; every other function a scenario declares must be mocked by each case that calls it (mock_function_responses): unmocked, it answers the model with a "mock this function" error, and a case that expects a call to it is rejected before anything runs.`
  )
)

const concurrency = Options.integer("concurrency").pipe(
  Options.filterMap((n) => (n >= 1 ? Option.some(n) : Option.none()), "--concurrency must be a whole number of at least 1"),
  Options.withDescription(`Cases running at once (default ${EvalRunner.defaultConcurrency}).`),
  Options.optional
)

const threshold = Options.float("threshold").pipe(
  Options.filterMap((t) => (t >= 0 && t <= 1 ? Option.some(t) : Option.none()), "--threshold is a fraction between 0 and 1, e.g. 0.9"),
  Options.withDescription(`The pass rate (0 to 1) below which the command exits with 1 (default ${EvalReport.defaultThreshold}).`),
  Options.withDefault(EvalReport.defaultThreshold)
)

const jsonFile = Options.text("json").pipe(Options.withDescription("Also write the report as JSON to this file."), Options.optional)
const junitFile = Options.text("junit").pipe(Options.withDescription("Also write the report as JUnit XML to this file."), Options.optional)

/** Scenarios resolved against the built-ins plus stand-ins for what they declare beyond them. */
interface Loaded {
  readonly scenarios: ReadonlyArray<Scenario.Scenario<FileSystem.FileSystem>>
  /** Per scenario, the declared functions that are not built in (they must be mocked). */
  readonly mockOnly: ReadonlyMap<string, ReadonlySet<string>>
}

const loadScenarios = (directory: string, builtins: Builtins.Options) =>
  Effect.gen(function* () {
    const builtinTools = Builtins.tools({ ...builtins, approval: false, fetchAlways: true })
    const standIns = (definition: Scenario.Definition) => definition.functions.filter((f) => !Builtins.names.includes(f.name))
    const scenarios = yield* Effect.mapError(
      Scenario.loadDirectory(directory, (definition) => Registry.unsafeMake(...builtinTools, ...standIns(definition).map(Builtins.standIn))),
      (error) => new InputError({ message: error.message })
    )
    if (scenarios.length === 0) return yield* Effect.fail(new InputError({ message: `${directory} holds no scenario files (*.md)` }))
    const mockOnly = new Map(scenarios.map((scenario) => [scenario.name, new Set(standIns(scenario).map((f) => f.name))] as const))
    return { scenarios, mockOnly } satisfies Loaded
  })

/** Every expected call to a function that is neither built in nor mocked by its case, as one error. */
const checkMocks = (cases: ReadonlyArray<EvalCase.EvalCase>, loaded: Loaded): Effect.Effect<void, InputError> => {
  const problems: Array<string> = []
  for (const evalCase of cases) {
    const mockOnly = loaded.mockOnly.get(evalCase.scenario)
    if (mockOnly === undefined) continue
    const missing = new Set(
      evalCase.expected_function_calls
        .map((call) => call.function_name)
        .filter((name) => mockOnly.has(name) && !Object.hasOwn(evalCase.mock_function_responses, name))
    )
    const where = evalCase.line === undefined ? evalCase.file : `${evalCase.file}:${evalCase.line}`
    for (const name of missing) {
      problems.push(
        `${where}: case "${evalCase.id}" expects a call to ${name}, which scenario "${evalCase.scenario}" declares but is not a built-in tool (${Builtins.names.join(", ")}): mock it under mock_function_responses.${name}`
      )
    }
  }
  return problems.length === 0 ? Effect.void : Effect.fail(new InputError({ message: problems.join("\n") }))
}

const writeReport = (file: string, text: string) =>
  Effect.flatMap(FileSystem.FileSystem, (fs) => fs.writeFileString(file, text)).pipe(
    Effect.mapError((error) => new OutputError({ message: `${file} cannot be written: ${error.message}` }))
  )

export const command = Command.make(
  "eval",
  {
    casesDir,
    scenarios: scenariosDir,
    provider: options.provider,
    model: options.model,
    baseUrl: options.baseUrl,
    maxTurns: options.maxTurns,
    root: options.root,
    allowHost: options.allowHost,
    concurrency,
    threshold,
    json: jsonFile,
    junit: junitFile
  },
  (args) =>
    Effect.gen(function* () {
      const io = yield* Io
      const path = yield* Path.Path
      const cases = yield* Effect.mapError(EvalCase.loadDirectory(args.casesDir), (error) => new InputError({ message: error.message }))
      if (cases.length === 0) return yield* Effect.fail(new InputError({ message: `${args.casesDir} holds no eval case files (*.yaml, *.yml)` }))
      const loaded = yield* loadScenarios(args.scenarios, { root: args.root, allowHosts: args.allowHost })
      yield* checkMocks(cases, loaded)

      const choice = yield* Provider.choose(Option.getOrUndefined(args.provider))
      const settings = options.settings(args)
      const runWith = <RM>(model: EvalRunner.Options<FileSystem.FileSystem, RM, never>["model"]) =>
        EvalRunner.run(cases, {
          suite: path.basename(path.resolve(args.casesDir)),
          scenarios: loaded.scenarios,
          model,
          threshold: args.threshold,
          ...(Option.isSome(args.concurrency) ? { concurrency: args.concurrency.value } : {}),
          agent: { maxTurns: Option.getOrUndefined(args.maxTurns) }
        })

      const report = yield* untilInterrupted(
        choice.name === "emulator"
          ? Effect.gen(function* () {
              if (settings.baseUrl !== undefined) return yield* Effect.fail(Provider.baseUrlWithEmulator())
              const replay = Provider.replay(cases)
              yield* io.err(`${Provider.describe({ choice, answers: replay.answers })}\n`)
              return yield* runWith(replay.model).pipe(Effect.provide(replay.emulator))
            })
          : Effect.scoped(
              Effect.gen(function* () {
                const context = yield* Layer.build(Provider.layer(choice, settings))
                const service = Context.get(context, LanguageModel.LanguageModel)
                yield* io.err(`${Provider.describe(Provider.announcement(choice, service, settings))}\n`)
                return yield* runWith(Layer.succeed(LanguageModel.LanguageModel, service))
              })
            )
      )

      yield* io.out(`${EvalReport.pretty(report, { color: io.isTTY })}\n`)
      if (Option.isSome(args.json)) yield* writeReport(args.json.value, EvalReport.json(report))
      if (Option.isSome(args.junit)) yield* writeReport(args.junit.value, EvalReport.junit(report))
      if (!report.summary.ok) return yield* Effect.fail(new BelowThreshold({ passRate: report.summary.passRate, threshold: report.summary.threshold }))
    })
).pipe(
  Command.withDescription(
    "Runs eval cases through the agent loop with the scenarios' instructions and functions, validates each case's calls against its expected_function_calls, prints the report call by call, optionally writes it as JSON and JUnit XML, and exits with 1 when the pass rate is below --threshold. Offline (no API key, or --provider emulator) each case needs its model turns under x-cassette: see <cases-dir>."
  )
)
