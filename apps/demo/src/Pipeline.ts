/**
 * The warranty agent: parse the e-mail, decide its scenario, run the agent with that scenario's functions and
 * instructions, require that the reply was sent, and return the agent's typed triage report (its final answer).
 */
import type { Agent, LanguageModel } from "@agentfx/core"
import { Dispatcher } from "@agentfx/tools"
import type { Scenario } from "@agentfx/tools"
import { Effect, Either, Schema } from "effect"
import * as Email from "./Email.js"
import * as Triage from "./Triage.js"
import { TriageReport } from "./TriageReport.js"
import type { WarrantyRegistry } from "./Warranty.js"

/** The e-mail was handled but no reply went out (or no scenario serves it). */
export class ProcessingError extends Schema.TaggedError<ProcessingError>()("ProcessingError", {
  scenario: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return `scenario "${this.scenario}": ${this.reason}`
  }
}

export interface Processed {
  readonly email: Email.Email
  readonly trigger: Triage.Trigger
  readonly scenario: string
  readonly result: Agent.AgentResult
  readonly calls: ReadonlyArray<Dispatcher.DispatchedCall>
  /** The arguments of the successful `send_email` call. */
  readonly reply: { readonly to: string; readonly subject: string; readonly body: string }
  /** The agent's final answer, decoded. */
  readonly triage: TriageReport
}

/** The scenario whose `trigger` list holds `trigger`. */
export const scenarioFor = <R>(
  scenarios: ReadonlyArray<Scenario.Scenario<R>>,
  trigger: string
): Either.Either<Scenario.Scenario<R>, ProcessingError> => {
  const found = scenarios.find((scenario) => scenario.trigger.includes(trigger))
  return found === undefined
    ? Either.left(new ProcessingError({ scenario: "none", reason: `no scenario has the trigger "${trigger}" (scenarios: ${scenarios.map((s) => s.name).join(", ")})` }))
    : Either.right(found)
}

/** What the model is given: the e-mail as received, with the address to reply to spelled out. */
export const promptOf = (email: Email.Email): string =>
  `Reply-to address: ${email.address}\n\nFrom: ${email.from}\nSubject: ${email.subject}\n\n${email.body}`

const stringField = (args: Record<string, unknown>, key: string): string => (typeof args[key] === "string" ? (args[key] as string) : "")

/** Processes one raw e-mail end to end. */
export const processEmail = <R>(
  raw: string,
  scenarios: ReadonlyArray<Scenario.Scenario<R>>,
  options: Omit<Dispatcher.RunOptions<R>, "prompt"> = {}
): Effect.Effect<Processed, Email.EmailParseError | ProcessingError | Agent.AgentError, R | WarrantyRegistry | LanguageModel.LanguageModel> =>
  Effect.gen(function* () {
    const email = yield* Email.parse(raw)
    const trigger = yield* Triage.detect(email)
    const scenario = yield* scenarioFor(scenarios, trigger)
    const dispatcher = yield* Dispatcher.make(scenario)
    const result = yield* dispatcher.run({ ...options, prompt: promptOf(email), output: TriageReport })
    const calls = yield* dispatcher.calls
    const sent = calls.find((call) => call.name === "send_email" && Either.isRight(call.result))
    if (sent === undefined) {
      const tried = calls.filter((call) => call.name === "send_email")
      return yield* Effect.fail(
        new ProcessingError({
          scenario: scenario.name,
          reason: tried.length === 0 ? "the agent finished without sending a reply" : `sending the reply failed: ${JSON.stringify(tried[tried.length - 1]!.response)}`
        })
      )
    }
    const reply = { to: stringField(sent.args, "to"), subject: stringField(sent.args, "subject"), body: stringField(sent.args, "body") }
    return { email, trigger, scenario: scenario.name, result, calls, reply, triage: result.output }
  })
