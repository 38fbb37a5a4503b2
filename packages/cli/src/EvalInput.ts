/**
 * The input of `agentfx eval`, read and checked before anything runs: every case file and every scenario file is
 * read (a broken one does not hide the next), then every case is checked against the scenarios — a scenario that
 * does not exist, an expected call or a mock for a function the scenario does not declare, an expected call to a
 * declared function that is not built in and not mocked. All problems come back at once, each with its file,
 * line and field, as one `InputError` (exit 2). The MCP servers of the scenarios some case uses are started here,
 * once every file and every check that does not need their tools has passed, for as long as the scope lasts: their
 * tools are declared functions like the others (run for real unless a case mocks them), and a server that cannot
 * start or lacks a listed tool is a problem of its scenario file. A program a scenario names is started only with
 * `--allow-scenario-commands` (an eval asks nobody): without it, each is a problem. Cases that run at once share each
 * scenario's servers.
 *
 * @since 0.1.0
 */
import { Registry } from "@agentfx/core"
import { EvalCase, Scenario } from "@agentfx/tools"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type * as Scope from "effect/Scope"
import { closest } from "@agentfx/core/Spelling"
import * as Builtins from "./Builtins.js"
import { InputError } from "./CliError.js"
import * as FileProblem from "./internal/fileProblem.js"
import * as McpTools from "./internal/mcpTools.js"
import * as ScenarioCommands from "./internal/scenarioCommands.js"

/** Cases and scenarios that passed every check. */
export interface Input {
  readonly cases: ReadonlyArray<EvalCase.EvalCase>
  readonly scenarios: ReadonlyArray<Scenario.Scenario<FileSystem.FileSystem>>
}

const where = (evalCase: EvalCase.EvalCase): string => (evalCase.line === undefined ? evalCase.file : `${evalCase.file}:${evalCase.line}`)

const list = (names: ReadonlyArray<string>): string => (names.length === 0 ? "none" : names.join(", "))

/** Files under `directory` (recursively or not) whose names pass `keep`, sorted; a problem when it cannot be listed. */
const filesIn = (directory: string, recursive: boolean, keep: (name: string) => boolean) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const names = yield* Effect.either(fs.readDirectory(directory, { recursive }))
    if (Either.isLeft(names)) return Either.left(`${directory}: cannot be read: ${FileProblem.describe(names.left)}`)
    return Either.right(names.right.filter((name) => keep(path.basename(name))).map((name) => path.join(directory, name)).sort())
  })

/** Every case of every file; problems per file (a file's first problem says how many more it has). */
const loadCases = (directory: string, problems: Array<string>) =>
  Effect.gen(function* () {
    const files = yield* filesIn(directory, true, (name) => /\.ya?ml$/i.test(name))
    if (Either.isLeft(files)) return problems.push(files.left), []
    if (files.right.length === 0) problems.push(`${directory}: holds no eval case files (*.yaml, *.yml)`)
    const cases: Array<EvalCase.EvalCase> = []
    for (const file of files.right) {
      const loaded = yield* Effect.either(EvalCase.load(file))
      if (Either.isLeft(loaded)) problems.push(loaded.left.message)
      else cases.push(...loaded.right)
    }
    const seen = new Map<string, EvalCase.EvalCase>()
    for (const evalCase of cases) {
      const twin = seen.get(evalCase.id)
      if (twin !== undefined) problems.push(`${where(evalCase)}: id: the case id "${evalCase.id}" is also used at ${where(twin)}`)
      else seen.set(evalCase.id, evalCase)
    }
    return cases
  })

/** Every scenario file of the directory, resolved against the built-ins plus stand-ins for the rest. */
const loadScenarios = (directory: string, builtins: Builtins.Options, problems: Array<string>) =>
  Effect.gen(function* () {
    const files = yield* filesIn(directory, false, (name) => name.toLowerCase().endsWith(".md") && name.toLowerCase() !== "readme.md")
    if (Either.isLeft(files)) return problems.push(files.left), []
    if (files.right.length === 0) problems.push(`${directory}: holds no scenario files (*.md)`)
    const builtinTools = Builtins.tools({ ...builtins, approval: false, fetchAlways: true })
    const implementations = (definition: Scenario.Definition) =>
      Registry.unsafeMake(...builtinTools, ...mockOnly(definition).map(Builtins.standIn))
    const scenarios: Array<Scenario.Scenario<FileSystem.FileSystem>> = []
    for (const file of files.right) {
      const loaded = yield* Effect.either(Scenario.load(file, implementations))
      if (Either.isLeft(loaded)) {
        problems.push(loaded.left.message)
        continue
      }
      const twin = scenarios.find((scenario) => scenario.name === loaded.right.name)
      if (twin !== undefined) problems.push(`${file}: name: scenario "${twin.name}" is also defined in ${twin.file}`)
      else scenarios.push(loaded.right)
    }
    return scenarios
  })

/** The functions a scenario declares that are not built in: each case that calls them must mock them. */
const mockOnly = (definition: Scenario.Definition) => definition.functions.filter((f) => !Builtins.names.includes(f.name))

/** How the scenarios' MCP servers are started. */
export interface ServerOptions {
  /** The most one message from a server may hold (`--mcp-max-bytes`; the MCP layer's default when undefined). */
  readonly maxMessageBytes?: number | undefined
  /** Whether the programs scenarios name may be started (`--allow-scenario-commands`): an eval asks nobody. */
  readonly allowCommands?: boolean | undefined
}

/** Each program a used scenario would start, as a problem, unless `allowed`: nothing is started without consent. */
const unconsented = (scenarios: ReadonlyArray<Scenario.Scenario<FileSystem.FileSystem>>, allowed: boolean): ReadonlyArray<string> =>
  allowed
    ? []
    : scenarios.flatMap((scenario) =>
        ScenarioCommands.commandsOf(scenario).map(
          (command) =>
            `${command.at}: ${command.field}.command: scenario "${scenario.name}" would start the program ${command.text} (MCP server ${command.server}): pass ${ScenarioCommands.flag} to let scenario files start programs (they run with your rights)`
        )
      )

/** The scenarios with the tools of the MCP servers they name, started; a server that fails is a problem. */
const startServers = (scenarios: ReadonlyArray<Scenario.Scenario<FileSystem.FileSystem>>, servers: ServerOptions, problems: Array<string>) =>
  Effect.gen(function* () {
    if (!scenarios.some((scenario) => scenario.mcp.length > 0)) return scenarios
    // Loaded only when a scenario names a server: nobody else pays for the MCP client.
    const Mcp = yield* Effect.promise(() => import("@agentfx/tools/mcp"))
    const started = yield* Effect.forEach(scenarios, (scenario) => Effect.either(Mcp.withServers(scenario, { maxMessageBytes: servers.maxMessageBytes })), {
      concurrency: "unbounded"
    })
    return started.flatMap((outcome) => {
      if (Either.isRight(outcome)) return [outcome.right]
      problems.push(McpTools.usageError(outcome.left).message)
      return []
    })
  })

/** The problems of one case against the scenarios. */
export const checkCase = (evalCase: EvalCase.EvalCase, scenarios: ReadonlyArray<Scenario.Scenario<unknown>>): Array<string> => {
  const at = `${where(evalCase)}: case "${evalCase.id}"`
  const scenario = scenarios.find((candidate) => candidate.name === evalCase.scenario)
  if (scenario === undefined) {
    const names = scenarios.map((candidate) => candidate.name)
    const near = closest(evalCase.scenario, names)
    return [`${at}: scenario: "${evalCase.scenario}" is not a scenario of --scenarios${near === undefined ? "" : ` (did you mean "${near}"?)`}; known: ${list(names)}`]
  }
  // The registry: the declared functions and the tools of the scenario's MCP servers.
  const declared = scenario.registry.names
  const problems: Array<string> = []
  evalCase.expected_function_calls.forEach((call, index) => {
    if (!declared.includes(call.function_name)) {
      problems.push(
        `${at}: expected_function_calls[${index}].function_name: "${call.function_name}" is not declared by scenario "${scenario.name}" (it declares: ${list(declared)})`
      )
    }
  })
  for (const name of Object.keys(evalCase.mock_function_responses)) {
    if (!declared.includes(name)) {
      problems.push(`${at}: mock_function_responses.${name}: scenario "${scenario.name}" declares no function "${name}" (it declares: ${list(declared)})`)
    }
  }
  const needsMock = new Set(mockOnly(scenario).map((f) => f.name))
  const unmocked = new Set(
    evalCase.expected_function_calls
      .map((call) => call.function_name)
      .filter((name) => needsMock.has(name) && !Object.hasOwn(evalCase.mock_function_responses, name))
  )
  for (const name of unmocked) {
    problems.push(
      `${at}: expects a call to ${name}, which scenario "${scenario.name}" declares but is not a built-in tool (${Builtins.names.join(", ")}): mock it under mock_function_responses.${name}`
    )
  }
  return problems
}

/** Reads and checks everything; every problem at once, or the input. */
export const load = (
  casesDir: string,
  scenariosDir: string,
  builtins: Builtins.Options,
  servers: ServerOptions = {}
): Effect.Effect<Input, InputError, FileSystem.FileSystem | Path.Path | Scope.Scope> =>
  Effect.gen(function* () {
    const problems: Array<string> = []
    const cases = yield* loadCases(casesDir, problems)
    const before = problems.length
    const loaded = yield* loadScenarios(scenariosDir, builtins, problems)
    // A case naming a scenario whose file is broken would only repeat that file's problem.
    const brokenScenarioFiles = problems.length > before
    const fail = Effect.suspend(() =>
      Effect.fail(
        new InputError({
          message: `${problems.length} problem${problems.length === 1 ? "" : "s"} in the eval input; nothing was run:`,
          problems
        })
      )
    )
    const checked = (scenarios: ReadonlyArray<Scenario.Scenario<FileSystem.FileSystem>>, which: (evalCase: EvalCase.EvalCase) => boolean) => {
      for (const evalCase of cases.filter(which)) {
        if (brokenScenarioFiles && !scenarios.some((s) => s.name === evalCase.scenario)) continue
        problems.push(...checkCase(evalCase, scenarios))
      }
    }
    const withServers = (name: string) => loaded.some((scenario) => scenario.name === name && scenario.mcp.length > 0)
    // Every check that needs no server's tools first: a broken input starts nothing.
    checked(loaded, (evalCase) => !withServers(evalCase.scenario))
    if (problems.length > 0) return yield* fail
    const used = new Set(cases.map((evalCase) => evalCase.scenario))
    problems.push(...unconsented(loaded.filter((scenario) => used.has(scenario.name)), servers.allowCommands === true))
    if (problems.length > 0) return yield* fail
    const started = yield* startServers(loaded.filter((scenario) => used.has(scenario.name)), servers, problems)
    if (problems.length > 0) return yield* fail
    const scenarios = loaded.map((scenario) => started.find((s) => s.name === scenario.name) ?? scenario)
    checked(scenarios, (evalCase) => withServers(evalCase.scenario))
    if (problems.length === 0) return { cases, scenarios }
    return yield* fail
  })
