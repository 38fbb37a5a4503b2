/**
 * The input of `agentfx eval`, read and checked before anything runs: every case file and every scenario file is
 * read (a broken one does not hide the next), then every case is checked against the scenarios — a scenario that
 * does not exist, an expected call or a mock for a function the scenario does not declare, an expected call to a
 * declared function that is not built in and not mocked. All problems come back at once, each with its file,
 * line and field, as one `InputError` (exit 2). A selected case that would run as a Live session (`mode: live`, its own
 * or its scenario's) is a problem too: the command has no live model to give it. The MCP servers of the scenarios some case uses are started here,
 * once every file and every check that does not need their tools has passed, for as long as the scope lasts: their
 * tools are declared functions like the others (run for real unless a case mocks them), and a server that cannot
 * start or lacks a listed tool is a problem of its scenario file. A program a scenario names is started only with
 * `--allow-scenario-commands` (an eval asks nobody): without it, each is a problem. Cases that run at once share each
 * scenario's servers.
 *
 * @since 0.1.0
 */
import { Json, Registry } from "@agentfx/core"
import * as Spelling from "@agentfx/core/Spelling"
import { EvalCase, Scenario } from "@agentfx/tools"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type * as Scope from "effect/Scope"
import * as Builtins from "./Builtins.js"
import { InputError } from "./CliError.js"
import type { UsageError } from "./CliError.js"
import * as FileProblem from "./internal/fileProblem.js"
import * as McpTools from "./internal/mcpTools.js"
import * as ScenarioCommands from "./internal/scenarioCommands.js"

/** Cases and scenarios that passed every check: the cases selected to run, of how many the files hold. */
export interface Input {
  readonly cases: ReadonlyArray<EvalCase.EvalCase>
  readonly scenarios: ReadonlyArray<Scenario.Scenario<FileSystem.FileSystem>>
  readonly total: number
}

/** Which of the sound cases run (`--filter`, `--tag`): applied once every file is checked, before any server starts. */
export type Select = (cases: ReadonlyArray<EvalCase.EvalCase>) => Either.Either<ReadonlyArray<EvalCase.EvalCase>, UsageError>

const where = (evalCase: EvalCase.EvalCase): string => (evalCase.line === undefined ? evalCase.file : `${evalCase.file}:${evalCase.line}`)

/** `file:line` of a field of the case (of the case itself when the field has no line of its own). */
const at = (evalCase: EvalCase.EvalCase, path: ReadonlyArray<PropertyKey>): string => {
  const line = evalCase.lineOf?.(path) ?? evalCase.line
  return line === undefined ? evalCase.file : `${evalCase.file}:${line}`
}

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

/** Every sound case of every file; every problem of the others (each case's every problem, with its line and field). */
const loadCases = (directory: string, problems: Array<string>) =>
  Effect.gen(function* () {
    const files = yield* filesIn(directory, true, (name) => /\.ya?ml$/i.test(name))
    if (Either.isLeft(files)) return problems.push(files.left), []
    if (files.right.length === 0) problems.push(`${directory}: holds no eval case files (*.yaml, *.yml)`)
    const cases: Array<EvalCase.EvalCase> = []
    for (const file of files.right) {
      const loaded = yield* EvalCase.loadEach(file)
      problems.push(...loaded.problems.map((problem) => problem.message))
      cases.push(...loaded.cases)
    }
    const seen = new Map<string, EvalCase.EvalCase>()
    for (const evalCase of cases) {
      const twin = seen.get(evalCase.id)
      if (twin !== undefined) problems.push(`${at(evalCase, ["id"])}: id: the case id "${evalCase.id}" is also used at ${where(twin)}`)
      else seen.set(evalCase.id, evalCase)
    }
    return cases
  })

/**
 * Every scenario file of the directory, resolved against the built-ins plus stand-ins for the rest; and whether a
 * scenario name may be that of a file that could not be loaded (the file's name without `.md`, or any name when the
 * directory gave none): a case naming it would only repeat that file's problems.
 */
const loadScenarios = (directory: string, builtins: Builtins.Options, problems: Array<string>) =>
  Effect.gen(function* () {
    const path = yield* Path.Path
    const files = yield* filesIn(directory, false, (name) => name.toLowerCase().endsWith(".md") && name.toLowerCase() !== "readme.md")
    const anyName = { scenarios: [], mayBeBroken: () => true }
    if (Either.isLeft(files)) return problems.push(files.left), anyName
    if (files.right.length === 0) return problems.push(`${directory}: holds no scenario files (*.md)`), anyName
    const broken = new Set<string>()
    const builtinTools = Builtins.tools({ ...builtins, approval: false, fetchAlways: true })
    const implementations = (definition: Scenario.Definition) =>
      Registry.unsafeMake(...builtinTools, ...mockOnly(definition).map(Builtins.standIn))
    const scenarios: Array<Scenario.Scenario<FileSystem.FileSystem>> = []
    for (const file of files.right) {
      const loaded = yield* Effect.either(Scenario.loadChecked(file, implementations))
      if (Either.isLeft(loaded)) {
        problems.push(...loaded.left.map((problem) => problem.message))
        broken.add(path.basename(file).replace(/\.md$/i, ""))
        continue
      }
      const twin = scenarios.find((scenario) => scenario.name === loaded.right.name)
      if (twin !== undefined) problems.push(`${file}: name: scenario "${twin.name}" is also defined in ${twin.file}`)
      else scenarios.push(loaded.right)
    }
    return { scenarios, mayBeBroken: (name: string) => broken.has(name) }
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

/**
 * The argument names a function declares, when it says which it takes: `undefined` when its parameters take any
 * (no `properties`, or `additionalProperties` other than false or absent).
 */
const argumentNames = (parameters: Json.JsonObject): ReadonlyArray<string> | undefined => {
  const extra = parameters.additionalProperties
  if (!Json.isPlainObject(parameters.properties) || (extra !== undefined && extra !== false)) return undefined
  return Object.keys(parameters.properties)
}

/** The problems of one case against the scenarios: unknown names, each with a "did you mean" when one is close. */
export const checkCase = (evalCase: EvalCase.EvalCase, scenarios: ReadonlyArray<Scenario.Scenario<unknown>>): Array<string> => {
  const named = `case "${evalCase.id}"`
  const scenario = scenarios.find((candidate) => candidate.name === evalCase.scenario)
  if (scenario === undefined) {
    const names = scenarios.map((candidate) => candidate.name)
    return [
      `${at(evalCase, ["scenario"])}: ${named}: scenario: "${evalCase.scenario}" is not a scenario of --scenarios${Spelling.didYouMean(evalCase.scenario, names)}; known: ${list(names)}`
    ]
  }
  // The registry: the declared functions and the tools of the scenario's MCP servers.
  const declared = scenario.registry.names
  const problems: Array<string> = []
  const unknownArguments = (name: string, args: Json.JsonObject | undefined, path: ReadonlyArray<PropertyKey>) => {
    const tool = scenario.registry.tools.get(name)
    const known = tool === undefined || args === undefined ? undefined : argumentNames(tool.declaration.parameters)
    if (known === undefined || args === undefined) return
    for (const key of Object.keys(args).filter((key) => !known.includes(key))) {
      problems.push(
        `${at(evalCase, [...path, key])}: ${named}: ${formatPath([...path, key])}: ${name} has no argument "${key}"${Spelling.didYouMean(key, known)}; it takes: ${list(known)}`
      )
    }
  }
  evalCase.expected_function_calls.forEach((call, index) => {
    const path = ["expected_function_calls", index]
    if (!declared.includes(call.function_name)) {
      problems.push(
        `${at(evalCase, [...path, "function_name"])}: ${named}: ${formatPath([...path, "function_name"])}: "${call.function_name}" is not declared by scenario "${scenario.name}"${Spelling.didYouMean(call.function_name, declared)} (it declares: ${list(declared)})`
      )
      return
    }
    unknownArguments(call.function_name, call.arguments, [...path, "arguments"])
    unknownArguments(call.function_name, call.arguments_contain, [...path, "arguments_contain"])
  })
  for (const [name, entries] of Object.entries(evalCase.mock_function_responses)) {
    const path = ["mock_function_responses", name]
    if (!declared.includes(name)) {
      problems.push(
        `${at(evalCase, path)}: ${named}: ${formatPath(path)}: scenario "${scenario.name}" declares no function "${name}"${Spelling.didYouMean(name, declared)} (it declares: ${list(declared)})`
      )
      continue
    }
    entries.forEach((entry, index) => unknownArguments(name, entry.when, [...path, index, "when"]))
  }
  const needsMock = new Set(mockOnly(scenario).map((f) => f.name))
  const unmocked = new Map<string, number>()
  evalCase.expected_function_calls.forEach((call, index) => {
    const name = call.function_name
    if (needsMock.has(name) && !Object.hasOwn(evalCase.mock_function_responses, name) && !unmocked.has(name)) unmocked.set(name, index)
  })
  for (const [name, index] of unmocked) {
    problems.push(
      `${at(evalCase, ["expected_function_calls", index, "function_name"])}: ${named}: expects a call to ${name}, which scenario "${scenario.name}" declares but is not a built-in tool (${Builtins.names.join(", ")}): mock it under mock_function_responses.${name}`
    )
  }
  return problems
}

const noLive = "agentfx eval does not run Live cases yet (EvalRunner.run does, given a live model)"

/**
 * Each case that would run as a Live session (its own `mode: live`, or its scenario's), as a problem; and each case
 * that runs as a REST run with `follow_up`, which only a Live session sends.
 */
const liveCases = (cases: ReadonlyArray<EvalCase.EvalCase>, scenarios: ReadonlyArray<Scenario.Scenario<unknown>>): Array<string> =>
  cases.flatMap((evalCase) => {
    const named = `case "${evalCase.id}"`
    const scenario = scenarios.find((candidate) => candidate.name === evalCase.scenario)
    if (evalCase.mode === "live") return [`${at(evalCase, ["mode"])}: ${named}: mode: the case runs as a Live session, and ${noLive}: leave it out with --filter or --tag`]
    if (evalCase.mode === undefined && scenario?.mode === "live") {
      return [`${at(evalCase, ["scenario"])}: ${named}: scenario: scenario "${scenario.name}" says mode: live, and ${noLive}: give the case mode: rest, or leave it out with --filter or --tag`]
    }
    return evalCase.follow_up === undefined ? [] : [`${at(evalCase, ["follow_up"])}: ${named}: follow_up: only a Live session sends further messages, and the case runs as a REST run`]
  })

/** `a.b[2].c`, as case files' problems name a field. */
const formatPath = (path: ReadonlyArray<PropertyKey>): string =>
  path.reduce<string>((text, key) => (typeof key === "number" ? `${text}[${key}]` : text === "" ? String(key) : `${text}.${String(key)}`), "")

/** Where a problem is: the `file` and `line` it starts with (`file:line: …`, or `file: …`). */
const placeOf = (problem: string): { readonly file: string; readonly line: number } => {
  const match = /^(.+?)(?::(\d+))?: /.exec(problem)
  return match === null ? { file: "", line: 0 } : { file: match[1]!, line: match[2] === undefined ? 0 : Number(match[2]) }
}

/** The problems as one error, file by file and line by line, saying how many files have them. */
const inputError = (problems: ReadonlyArray<string>): InputError => {
  const placed = problems.map((problem) => ({ problem, ...placeOf(problem) }))
  const sorted = placed.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line)).map(({ problem }) => problem)
  const files = new Set(placed.map(({ file }) => file).filter((file) => file !== "")).size
  const count = `${problems.length} problem${problems.length === 1 ? "" : "s"}`
  return new InputError({
    message: `${count} in ${files > 1 ? `${files} files of ` : ""}the eval input; nothing was run:`,
    problems: sorted
  })
}

/** Reads and checks everything; every problem at once, or the input. */
export const load = (
  casesDir: string,
  scenariosDir: string,
  builtins: Builtins.Options,
  servers: ServerOptions = {},
  select: Select = Either.right
): Effect.Effect<Input, InputError | UsageError, FileSystem.FileSystem | Path.Path | Scope.Scope> =>
  Effect.gen(function* () {
    const problems: Array<string> = []
    const all = yield* loadCases(casesDir, problems)
    const { scenarios: loaded, mayBeBroken } = yield* loadScenarios(scenariosDir, builtins, problems)
    const fail = Effect.suspend(() => Effect.fail(inputError(problems)))
    const checked = (scenarios: ReadonlyArray<Scenario.Scenario<FileSystem.FileSystem>>, cases: ReadonlyArray<EvalCase.EvalCase>, which: (evalCase: EvalCase.EvalCase) => boolean) => {
      for (const evalCase of cases.filter(which)) {
        if (mayBeBroken(evalCase.scenario) && !scenarios.some((s) => s.name === evalCase.scenario)) continue
        problems.push(...checkCase(evalCase, scenarios))
      }
    }
    const withServers = (name: string) => loaded.some((scenario) => scenario.name === name && scenario.mcp.length > 0)
    // Every check that needs no server's tools first: a broken input starts nothing.
    checked(loaded, all, (evalCase) => !withServers(evalCase.scenario))
    // Live cases of the cases selected (all of them when the selection is itself wrong: it is said next).
    const chosen = select(all)
    problems.push(...liveCases(Either.isRight(chosen) ? chosen.right : all, loaded))
    if (problems.length > 0) return yield* fail
    const cases = yield* select(all)
    const used = new Set(cases.map((evalCase) => evalCase.scenario))
    problems.push(...unconsented(loaded.filter((scenario) => used.has(scenario.name)), servers.allowCommands === true))
    if (problems.length > 0) return yield* fail
    const started = yield* startServers(loaded.filter((scenario) => used.has(scenario.name)), servers, problems)
    if (problems.length > 0) return yield* fail
    const scenarios = loaded.map((scenario) => started.find((s) => s.name === scenario.name) ?? scenario)
    checked(scenarios, cases, (evalCase) => withServers(evalCase.scenario))
    if (problems.length === 0) return { cases, scenarios, total: all.length }
    return yield* fail
  })
