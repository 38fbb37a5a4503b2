/**
 * @agentfx/tools — built-in tools, scenario files (Markdown + YAML front matter) and their dispatcher, and the
 * eval harness (case files, validator, reports, runner).
 *
 * @since 0.1.0
 */
export * as Calculator from "./builtins/Calculator.js"
export * as Clock from "./builtins/Clock.js"
export * as FetchUrl from "./builtins/FetchUrl.js"
export * as Files from "./builtins/Files.js"
export * as Cassette from "./Cassette.js"
export * as Dispatcher from "./Dispatcher.js"
export * as EvalBaseline from "./EvalBaseline.js"
export * as EvalCase from "./EvalCase.js"
export * as EvalHtml from "./EvalHtml.js"
export * as EvalJudge from "./EvalJudge.js"
export * as EvalReport from "./EvalReport.js"
export * as EvalRunner from "./EvalRunner.js"
export * as EvalSelection from "./EvalSelection.js"
export * as EvalValidator from "./EvalValidator.js"
export * as LiveCassette from "./LiveCassette.js"
export * as Mocks from "./Mocks.js"
export * as Scenario from "./Scenario.js"
