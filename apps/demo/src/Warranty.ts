/**
 * The back-office systems behind the warranty agent's functions, as services so that the demo, the eval suite
 * and a real deployment can each provide their own: the warranty registry, the ticketing system and the mailer.
 * The implementations here are deterministic (a fixed product table, sequential ticket ids, an in-memory outbox).
 */
import { Context, Effect, Layer, Ref, Schema } from "effect"

export const WarrantyStatus = Schema.Literal("active", "expired", "unknown")

export const WarrantyRecord = Schema.Struct({
  serial_number: Schema.String,
  status: WarrantyStatus,
  product: Schema.optional(Schema.String),
  purchase_date: Schema.optional(Schema.String),
  warranty_until: Schema.optional(Schema.String)
})
export interface WarrantyRecord extends Schema.Schema.Type<typeof WarrantyRecord> {}

/** The warranty service did not answer. */
export class WarrantyServiceUnavailable extends Schema.TaggedError<WarrantyServiceUnavailable>()("WarrantyServiceUnavailable", {
  message: Schema.String
}) {}

export class WarrantyRegistry extends Context.Tag("@agentfx/demo/WarrantyRegistry")<
  WarrantyRegistry,
  { readonly check: (serial: string) => Effect.Effect<WarrantyRecord, WarrantyServiceUnavailable> }
>() {
  /** A registry answering from a fixed table; serials not in it are `unknown`. */
  static readonly fromTable = (table: ReadonlyArray<WarrantyRecord>): Layer.Layer<WarrantyRegistry> =>
    Layer.succeed(WarrantyRegistry, {
      check: (serial) => Effect.succeed(table.find((record) => record.serial_number === serial.toUpperCase()) ?? { serial_number: serial, status: "unknown" })
    })

  /** A registry that is down. */
  static readonly down: Layer.Layer<WarrantyRegistry> = Layer.succeed(WarrantyRegistry, {
    check: () => Effect.fail(new WarrantyServiceUnavailable({ message: "the warranty service is not responding" }))
  })
}

export const Ticket = Schema.Struct({ ticket_id: Schema.String, serial_number: Schema.String })
export interface Ticket extends Schema.Schema.Type<typeof Ticket> {}

export class Ticketing extends Context.Tag("@agentfx/demo/Ticketing")<
  Ticketing,
  { readonly create: (request: { readonly serial_number: string; readonly customer_email: string; readonly issue: string }) => Effect.Effect<Ticket> }
>() {
  /** Ticket ids `T-1001`, `T-1002`, ... in creation order. */
  static readonly sequential: Layer.Layer<Ticketing> = Layer.effect(
    Ticketing,
    Effect.map(Ref.make(1000), (counter) => ({
      create: (request) => Effect.map(Ref.updateAndGet(counter, (n) => n + 1), (n) => ({ ticket_id: `T-${n}`, serial_number: request.serial_number }))
    }))
  )
}

export const SentEmail = Schema.Struct({ to: Schema.String, subject: Schema.String, body: Schema.String })
export interface SentEmail extends Schema.Schema.Type<typeof SentEmail> {}

export class Mailer extends Context.Tag("@agentfx/demo/Mailer")<
  Mailer,
  {
    readonly send: (email: SentEmail) => Effect.Effect<{ readonly message_id: string; readonly status: "sent" }>
    readonly outbox: Effect.Effect<ReadonlyArray<SentEmail>>
  }
>() {
  /** Keeps sent mail in memory; ids `M-1`, `M-2`, ... */
  static readonly inMemory: Layer.Layer<Mailer> = Layer.effect(
    Mailer,
    Effect.map(Ref.make<ReadonlyArray<SentEmail>>([]), (sent) => ({
      send: (email) => Effect.map(Ref.updateAndGet(sent, (all) => [...all, email]), (all) => ({ message_id: `M-${all.length}`, status: "sent" as const })),
      outbox: Ref.get(sent)
    }))
  )
}

/** The product table of the demo. */
export const demoWarranties: ReadonlyArray<WarrantyRecord> = [
  { serial_number: "SN-KT2024A", status: "active", product: "Kettle Pro 2", purchase_date: "2025-03-14", warranty_until: "2027-03-14" },
  { serial_number: "SN-TS1001", status: "active", product: "Toaster Duo", purchase_date: "2025-09-02", warranty_until: "2027-09-02" },
  { serial_number: "SN-BL3300", status: "expired", product: "Blender 3000", purchase_date: "2021-06-30", warranty_until: "2023-06-30" },
  { serial_number: "SN-CF0042", status: "expired", product: "Coffee Maker Mini", purchase_date: "2022-01-10", warranty_until: "2024-01-10" }
]
