/**
 * A command's body run with the model it chose (announced on stderr first), and agent errors worded for the
 * terminal.
 */
import type { Agent, LanguageModel } from "@agentfx/core"
import type { Policy } from "@agentfx/emulator"
import * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import { RunFailed } from "../CliError.js"
import { Io } from "../Io.js"
import * as Provider from "../Provider.js"


/** An agent run's error, for the terminal. */
export const describeAgentError = (error: Agent.AgentError): string => `${error._tag}: ${error.message}`

export const runFailed = (error: Agent.AgentError): RunFailed => new RunFailed({ message: describeAgentError(error) })

/** Runs `body` with the chosen model, after saying on stderr which one it is. */
export const withModel = <A, E, R>(
  flag: Option.Option<Provider.Name>,
  settings: Provider.Settings,
  body: (choice: Provider.Choice) => Effect.Effect<A, E, R | LanguageModel.LanguageModel>,
  policy?: Policy.Policy
) =>
  Effect.gen(function* () {
    const io = yield* Io
    const choice = yield* Provider.choose(flag._tag === "Some" ? flag.value : undefined)
    return yield* Effect.gen(function* () {
      yield* io.err(`${yield* Provider.announce(choice, settings)}\n`)
      return yield* body(choice)
    }).pipe(Effect.provide(Provider.layer(choice, settings, policy)))
  })
