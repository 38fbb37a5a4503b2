/**
 * The agent loop with its hooks, for packages that build on it (`@agentfx/durable` records each model attempt as a
 * step and sleeps the retry waits on its durable clock). Not for applications: `Agent.run` is this loop without
 * hooks. The steps stay core's; a hook only wraps one of them.
 *
 * @example
 * ```ts
 * import { Registry } from "@agentfx/core"
 * import * as Loop from "@agentfx/core/loop"
 * import { Scripted } from "@agentfx/core/testing"
 * import { Effect } from "effect"
 *
 * // A hook that wraps each model attempt, as a durable run records it as a step.
 * const attempts: Array<string> = []
 * const program = Loop.run(
 *   { registry: Registry.empty, prompt: "Hello?" },
 *   { attempt: (turn, attempt, request) => Effect.tap(request, () => Effect.sync(() => attempts.push(`turn/${turn}/attempt/${attempt}`))) }
 * )
 * Effect.runPromise(program.pipe(Effect.provide(Scripted.layer([{ text: "Hello!" }]))))
 *   .then((result) => console.log(result.text, attempts)) // "Hello!" ["turn/1/attempt/1"]
 * ```
 *
 * @since 0.3.0
 */
import type * as Effect from "effect/Effect"
import type { AgentError, Options } from "./Agent.js"
import type { AgentResult } from "./AgentResult.js"
import { loop } from "./internal/loop.js"
import type { Hooks as RunHooks } from "./internal/run.js"
import type { LanguageModel } from "./LanguageModel.js"

/**
 * What a caller may wrap: each attempt at a model turn (`attempt`), the clock of the waits between attempts
 * (`retryClock`), and the transcript at each complete point (`commit`).
 *
 * @since 0.3.0
 * @category models
 */
export type Hooks = Pick<RunHooks, "attempt" | "retryClock" | "commit">

/**
 * Runs the conversation to its end, as `Agent.run` does, with the given hooks.
 *
 * @since 0.3.0
 * @category running
 */
export const run = <R>(options: Options<R>, hooks: Hooks): Effect.Effect<AgentResult, AgentError, LanguageModel | R> => loop(options, hooks)
