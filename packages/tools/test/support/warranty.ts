import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { Registry, Tool } from "@agentfx/core"

/** Implementations the scenario tests resolve against (the demo has its own). */
export const checkWarranty = Tool.make("check_warranty", {
  description: "implementation description (scenarios override it)",
  parameters: Schema.Struct({ serial_number: Schema.String }),
  success: Schema.Struct({ valid: Schema.Boolean, expires: Schema.String }),
  handler: ({ serial_number }) =>
    Effect.succeed(serial_number.startsWith("SN-") ? { valid: true, expires: "2026-01-01" } : { valid: false, expires: "" })
})

export const createTicket = Tool.make("create_ticket", {
  description: "Opens a repair ticket",
  parameters: Schema.Struct({
    serial_number: Schema.String,
    summary: Schema.String,
    priority: Schema.optional(Schema.Literal("low", "high"))
  }),
  handler: ({ serial_number }) => Effect.succeed({ ticket_id: `T-${serial_number}` })
})

export const sendEmail = Tool.make("send_email", {
  description: "Sends an e-mail",
  parameters: Schema.Struct({ to: Schema.String, subject: Schema.String, body: Schema.String }),
  handler: ({ to }) => Effect.succeed({ sent: true, to })
})

export const lookupCustomer = Tool.make("lookup_customer", {
  description: "Finds a customer",
  parameters: Schema.Struct({
    customer: Schema.Struct({ id: Schema.Int, tags: Schema.Array(Schema.String), note: Schema.NullOr(Schema.String) })
  }),
  handler: ({ customer }) => Effect.succeed({ id: customer.id })
})

export const slow = Tool.make("slow", {
  description: "Takes two seconds",
  parameters: Schema.Struct({}),
  handler: () => Effect.as(Effect.sleep("2 seconds"), "done")
})

export const implementations = Registry.unsafeMake(checkWarranty, createTicket, sendEmail, lookupCustomer, slow)

export const checkWarrantyYaml = `  - name: check_warranty
    description: Looks up the warranty of a serial number
    parameters:
      type: object
      properties:
        serial_number: { type: string, description: The serial number on the product }
      required: [serial_number]`

export const createTicketYaml = `  - name: create_ticket
    description: Opens a repair ticket for a product under warranty
    parameters:
      type: object
      properties:
        serial_number: { type: string }
        summary: { type: string }
        priority: { type: string, enum: [low, high] }
      required: [serial_number, summary]`

export const sendEmailYaml = `  - name: send_email
    description: Sends the reply to the customer
    parameters:
      type: object
      properties:
        to: { type: string }
        subject: { type: string }
        body: { type: string }
      required: [to, subject, body]`

/** A scenario file's text. */
export const scenarioText = (name: string, functions: ReadonlyArray<string>, body = `You handle ${name} e-mails.`) =>
  `---
name: ${name}
description: The ${name} scenario
version: 2
trigger: customer writes about ${name}
available_functions:${functions.length === 0 ? " []" : "\n" + functions.join("\n")}
---
${body}
`
