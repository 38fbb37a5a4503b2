/**
 * A command's body run with the model it chose (announced on stderr first), and agent errors worded for the
 * terminal: a key the provider refused is one line naming the variable and the way to run offline.
 */
import type { Agent } from "@agentfx/core"
import { LanguageModel } from "@agentfx/core"
import type { Policy } from "@agentfx/emulator"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import type { ProviderError } from "../CliError.js"
import { RunFailed } from "../CliError.js"
import { Io } from "../Io.js"
import * as Provider from "../Provider.js"

/** An agent run's error, for the terminal. */
export const describeAgentError = (error: Agent.AgentError): string => `${error._tag}: ${error.message}`

/** What `--verbose` adds to an error: the details it kept (every problem of a wrong-shaped answer), if any. */
export const detailsOf = (error: { readonly _tag: string }): { readonly details?: string } =>
  "details" in error && typeof error.details === "string" ? { details: error.details } : {}

/** Whether the provider refused the key (401, 403): retrying, or going on with the next case, cannot help. */
export const isRefusal = (error: { readonly _tag: string }): boolean => error._tag === "Unauthorized"

/** An agent error as the command's error. */
export const runFailed = (choice: Provider.Choice) => (error: Agent.AgentError): RunFailed | ProviderError =>
  error._tag === "Unauthorized" ? Provider.refused(choice, error) : new RunFailed({ message: describeAgentError(error), ...detailsOf(error) })

/** Runs `body` with the chosen model, after saying on stderr which one it is. */
export const withModel = <A, E, R>(
  flag: Provider.Name | undefined,
  settings: Provider.Settings,
  body: (choice: Provider.Choice) => Effect.Effect<A, E, R | LanguageModel.LanguageModel>,
  policy?: Policy.Policy
) =>
  Effect.gen(function* () {
    const io = yield* Io
    const choice = yield* Provider.choose(flag)
    return yield* Effect.gen(function* () {
      yield* io.err(`${yield* Provider.announce(choice, settings)}\n`)
      return yield* body(choice)
    }).pipe(Effect.provide(Provider.layer(choice, settings, policy)))
  })

/**
 * Like `withModel`, but offline the body starts at once while the emulator and the provider layer start in the
 * background: a chat shows its prompt without waiting for them, and the first message waits if it must. A real
 * provider is built first, so a configuration error ends the command before any prompt.
 */
export const withModelEarly = <A, E, R>(
  flag: Provider.Name | undefined,
  settings: Provider.Settings,
  body: (choice: Provider.Choice) => Effect.Effect<A, E, R | LanguageModel.LanguageModel>
) =>
  Effect.gen(function* () {
    const choice = yield* Provider.choose(flag)
    if (choice.name !== "emulator") return yield* withModel(flag, settings, body)
    if (settings.baseUrl !== undefined) return yield* Effect.fail(Provider.baseUrlWithEmulator())
    const io = yield* Io
    yield* io.err(`${Provider.describe({ choice })}\n`)
    return yield* Effect.scoped(
      Effect.gen(function* () {
        const scope = yield* Effect.scope
        const building = yield* Effect.forkScoped(
          Effect.map(Layer.buildWithScope(Layer.orDie(Provider.layer(choice, settings)), scope), (context) => Context.get(context, LanguageModel.LanguageModel))
        )
        const ready = Fiber.join(building)
        const service: LanguageModel.Service = {
          provider: "gemini",
          model: settings.model ?? "emulator",
          generate: (request) => Effect.flatMap(ready, (model) => model.generate(request)),
          stream: (request) => Stream.unwrap(Effect.map(ready, (model) => model.stream(request)))
        }
        return yield* Effect.provideService(body(choice), LanguageModel.LanguageModel, service)
      })
    )
  })
