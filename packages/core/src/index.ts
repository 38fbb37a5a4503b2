/**
 * @agentfx/core — the provider-neutral domain, tools, registry, executor and agent loop.
 *
 * @since 0.1.0
 */
export * as Agent from "./Agent.js"
export * as Approval from "./Approval.js"
export * as Chat from "./Chat.js"
export * as Dialect from "./Dialect.js"
export * as Executor from "./Executor.js"
export * as FunctionCall from "./FunctionCall.js"
export * as FunctionDeclaration from "./FunctionDeclaration.js"
export * as FunctionResponse from "./FunctionResponse.js"
export * as Json from "./Json.js"
export * as LanguageModel from "./LanguageModel.js"
export * as LiveAgent from "./LiveAgent.js"
export * as LiveError from "./LiveError.js"
export * as LiveModel from "./LiveModel.js"
export * as ModelError from "./ModelError.js"
export * as Output from "./Output.js"
export * as Registry from "./Registry.js"
export * as Retry from "./Retry.js"
export * as StopCondition from "./StopCondition.js"
export * as Telemetry from "./Telemetry.js"
export * as Tool from "./Tool.js"
export * as ToolError from "./ToolError.js"
export * as Transcript from "./Transcript.js"
export * as Turn from "./Turn.js"
