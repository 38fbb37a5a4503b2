/**
 * @agentfx/providers — `LanguageModel` layers for Gemini (REST) and any OpenAI-compatible chat-completions server,
 * with GLM (Z.AI) and OpenAI presets. The wire-faithful emulator is the `@agentfx/providers/emulator` entry point.
 *
 * @since 0.1.0
 */
export * as ChatCompletions from "./ChatCompletions.js"
export * as Gemini from "./Gemini.js"
export * as Glm from "./Glm.js"
export * as OpenAI from "./OpenAI.js"
