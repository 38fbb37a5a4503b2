/**
 * @agentfx/providers — `LanguageModel` layers for Gemini (REST) and any OpenAI-compatible chat-completions server,
 * with GLM (Z.AI) and OpenAI presets, and the `LiveModel` layer of Gemini Live (WebSocket). The wire-faithful
 * emulator to run them offline is its own package, `@agentfx/emulator`.
 *
 * @since 0.1.0
 */
export * as BaseUrl from "./BaseUrl.js"
export * as ChatCompletions from "./ChatCompletions.js"
export * as Gemini from "./Gemini.js"
export * as GeminiLive from "./GeminiLive.js"
export * as Glm from "./Glm.js"
export * as OpenAI from "./OpenAI.js"
