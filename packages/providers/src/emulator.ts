/**
 * @agentfx/providers/emulator — a local, wire-faithful emulator of the Gemini REST and OpenAI-compatible
 * (GLM, OpenAI) chat APIs, for offline runs and tests through the real SDKs: `Emulator` (the server),
 * `Policy` (what the model says), `Fault` (what goes wrong).
 *
 * @since 0.1.0
 */
export * as Emulator from "./emulator/Emulator.js"
export * as Fault from "./emulator/Fault.js"
export * as Policy from "./emulator/Policy.js"
