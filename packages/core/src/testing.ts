/**
 * Test helpers, public so users test their own agents the same way: a scripted `LanguageModel`, deterministic,
 * that records every request it received and can check that its script was used up; and a scripted `LiveModel`
 * (`ScriptedLive`) whose server reacts to what the client sends, drops and goes away on demand, and logs both sides.
 *
 * @since 0.1.0
 */
export * as Scripted from "./Scripted.js"
export * as ScriptedLive from "./ScriptedLive.js"
