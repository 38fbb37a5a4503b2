/**
 * The agent's final answer for one e-mail, typed: what it decided (`category`), the serial numbers it checked, the
 * tickets it opened, whether the reply went out, and a one-line summary. The run is given this Schema as its
 * `output`, so the model's last turn is JSON that decodes with it (corrected by the loop when it does not).
 */
import { Schema } from "effect"

export const TriageReport = Schema.Struct({
  category: Schema.Literal("repair", "not-covered", "needs-info", "follow-up").annotations({
    description: "repair: a ticket was opened under warranty; not-covered: expired or unknown; needs-info: no usable serial number; follow-up: the warranty service was down"
  }),
  serials: Schema.Array(Schema.String).annotations({ description: "The serial numbers whose warranty was checked" }),
  ticketIds: Schema.Array(Schema.String).annotations({ description: "The ids of the tickets opened" }),
  replySent: Schema.Boolean.annotations({ description: "Whether the reply e-mail was sent" }),
  summary: Schema.String.annotations({ description: "What was done, in one sentence" })
}).annotations({ identifier: "TriageReport" })

export interface TriageReport extends Schema.Schema.Type<typeof TriageReport> {}

/** The report on one line, for the terminal: `repair · serials SN-1 · tickets T-1 · reply sent`. */
export const line = (report: TriageReport): string =>
  [
    report.category,
    `serials ${report.serials.join(", ") || "none"}`,
    `tickets ${report.ticketIds.join(", ") || "none"}`,
    report.replySent ? "reply sent" : "no reply sent"
  ].join(" · ")
