/**
 * The `Approval` service on the terminal: before a tool that needs approval runs, the call is shown and the user
 * answers `y` (run it) or anything else (refuse it; the model is told). The end of input refuses too; Ctrl-C at
 * the prompt cancels the whole reply, as it does anywhere else in a reply.
 * Prompts are asked one at a time, even when calls run in parallel.
 *
 * @since 0.1.0
 */
import type { FunctionCall, Registry } from "@agentfx/core"
import { Approval } from "@agentfx/core"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Screen from "./Screen.js"

/** Whether `call` will ask for approval before it runs (its tool needs it for these arguments). */
export const asksFor = <R>(registry: Registry.Registry<R>) => (call: FunctionCall.FunctionCall): boolean => {
  const tool = registry.tools.get(call.name)
  if (tool === undefined) return false
  const decoded = tool.decode(call.args)
  return Either.isRight(decoded) && tool.needsApproval(decoded.right)
}

/** The prompt shown for a call. */
export const prompt = (call: FunctionCall.FunctionCall): string => `→ ${Screen.callText(call)} — allow? [y/N] `

/** Asks on `screen`, after the screen has shown everything streamed before the call. */
export const make = (screen: Screen.Screen): Effect.Effect<Approval.Approval["Type"]> =>
  Effect.map(Effect.makeSemaphore(1), (lock) => ({
    approve: ({ call }) =>
      lock.withPermits(1)(
        Effect.gen(function* () {
          yield* screen.shown(call.id)
          const input = yield* screen.ask(prompt(call))
          switch (input._tag) {
            case "Line":
              return /^\s*y(es)?\s*$/i.test(input.text) ? Approval.approved : Approval.denied("the user refused it in the terminal")
            case "Interrupt":
              return Approval.denied("the user cancelled with Ctrl-C")
            case "End":
              return Approval.denied("nobody could answer (the input ended)")
          }
        })
      )
  }))

/** The terminal approval as a layer. */
export const layer = (screen: Screen.Screen): Layer.Layer<Approval.Approval> => Layer.effect(Approval.Approval, make(screen))
