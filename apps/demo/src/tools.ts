/**
 * The warranty agent's functions. Scenario files declare which of them a scenario offers; these are the
 * implementations they resolve to.
 */
import { Tool } from "@agentfx/core"
import { Effect, Schema } from "effect"
import { Mailer, Ticket, Ticketing, WarrantyRecord, WarrantyRegistry, WarrantyServiceUnavailable } from "./Warranty.js"

export const checkWarranty = Tool.make("check_warranty", {
  description: "Looks up the warranty of a product by its serial number",
  parameters: Schema.Struct({ serial_number: Schema.String.annotations({ description: "The serial number, e.g. SN-KT2024A" }) }),
  success: WarrantyRecord,
  failure: WarrantyServiceUnavailable,
  timeout: "10 seconds",
  handler: ({ serial_number }) => Effect.flatMap(WarrantyRegistry, (registry) => registry.check(serial_number))
})

export const createTicket = Tool.make("create_ticket", {
  description: "Opens a repair ticket for a product under warranty",
  parameters: Schema.Struct({
    serial_number: Schema.String,
    customer_email: Schema.String,
    issue: Schema.String.annotations({ description: "What is wrong, in the customer's words" })
  }),
  success: Ticket,
  handler: (request) => Effect.flatMap(Ticketing, (ticketing) => ticketing.create(request))
})

export const sendEmail = Tool.make("send_email", {
  description: "Sends the reply e-mail to the customer",
  parameters: Schema.Struct({ to: Schema.String, subject: Schema.String, body: Schema.String }),
  success: Schema.Struct({ message_id: Schema.String, status: Schema.Literal("sent") }),
  handler: (email) => Effect.flatMap(Mailer, (mailer) => mailer.send(email))
})

export const all = [checkWarranty, createTicket, sendEmail] as const
