/**
 * Decides which scenario an e-mail belongs to, before the model sees it. The decision is a trigger string, and
 * the scenario files say which triggers they serve: a new scenario for an existing trigger is a file, not code.
 *
 * Triggers: `no-serial` (nothing to check); otherwise the warranty of the serial numbers decides:
 * `warranty:unavailable` (the service is down), `warranty:active` (any product covered),
 * `warranty:expired`, `warranty:unknown`.
 */
import { Effect, Either } from "effect"
import type { Email } from "./Email.js"
import { serialNumbers } from "./Email.js"
import { WarrantyRegistry } from "./Warranty.js"

export type Trigger = "no-serial" | "warranty:unavailable" | "warranty:active" | "warranty:expired" | "warranty:unknown"

export const detect = (email: Email): Effect.Effect<Trigger, never, WarrantyRegistry> =>
  Effect.gen(function* () {
    const serials = serialNumbers(email)
    if (serials.length === 0) return "no-serial"
    const registry = yield* WarrantyRegistry
    const records = yield* Effect.forEach(serials, (serial) => Effect.either(registry.check(serial)), { concurrency: "unbounded" })
    if (records.some(Either.isLeft)) return "warranty:unavailable"
    const statuses = records.flatMap((record) => (Either.isRight(record) ? [record.right.status] : []))
    if (statuses.includes("active")) return "warranty:active"
    return statuses.includes("expired") ? "warranty:expired" : "warranty:unknown"
  })
