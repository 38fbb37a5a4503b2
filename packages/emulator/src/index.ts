/**
 * @agentfx/emulator — a local, wire-faithful emulator of the Gemini REST and OpenAI-compatible (GLM, OpenAI)
 * chat APIs, for offline runs and tests through the real, unmodified SDKs: `Emulator` (the server), `Policy` (what
 * the model says), `Fault` (what goes wrong), `Conformance` (the emulator's reading of a request body, as the
 * server would read it). It reads the wire with its own schemas, written from the protocols rather than from any
 * client's codec, so a client's mistake is caught here instead of repeated.
 *
 * @since 0.2.0
 */
export * as Conformance from "./Conformance.js"
export * as Emulator from "./Emulator.js"
export * as Fault from "./Fault.js"
export * as Policy from "./Policy.js"
