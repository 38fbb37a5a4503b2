import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import * as Email from "../src/Email.js"
import * as Triage from "../src/Triage.js"
import { demoWarranties, WarrantyRegistry } from "../src/Warranty.js"

const raw = (headers: string, body = "Hello") => `${headers}\n\n${body}\n`

describe("Email.parse", () => {
  it("reads From (with or without a display name), Subject and the body", () => {
    const email = Either.getOrThrow(Email.parse(raw("From: Ada Byron <ada@example.com>\r\nSubject: Kettle\r\nX-Mailer: test", "Line one\nLine two")))
    expect(email).toEqual({ from: "Ada Byron <ada@example.com>", address: "ada@example.com", subject: "Kettle", body: "Line one\nLine two" })
    expect(Either.getOrThrow(Email.parse(raw("from: bob@example.org\nsubject:"))).address).toBe("bob@example.org")
  })

  it.each([
    ["no blank line", "From: a@example.com\nSubject: x", "malformed e-mail: no blank line between the headers and the body"],
    ["a header without a colon", "From a@example.com\nSubject: x\n\nbody", 'malformed e-mail, line 1: expected a "Name: value" header, got "From a@example.com"'],
    ["no From", "Subject: x\n\nbody", "malformed e-mail: the From header is missing"],
    ["a From without an address", "From: Ada\nSubject: x\n\nbody", 'malformed e-mail: the From header holds no valid address: "Ada"'],
    ["no Subject", "From: a@example.com\n\nbody", "malformed e-mail: the Subject header is missing"],
    ["an empty body", "From: a@example.com\nSubject: x\n\n   \n", "malformed e-mail: the body is empty"]
  ])("refuses %s", (_, text, message) => {
    const result = Email.parse(text)
    expect(Either.isLeft(result) && result.left.message).toBe(message)
  })

  it("finds serial numbers in subject and body, upper-cased and without repeats", () => {
    const email = Either.getOrThrow(Email.parse(raw("From: a@example.com\nSubject: SN-KT2024A", "also sn-ts1001 and SN-KT2024A, not SN-12 or 48213-77")))
    expect(Email.serialNumbers(email)).toEqual(["SN-KT2024A", "SN-TS1001"])
  })
})

describe("Triage.detect", () => {
  const detect = (body: string) =>
    Triage.detect(Either.getOrThrow(Email.parse(raw("From: a@example.com\nSubject: help", body))))

  it.effect("maps the warranty state of the serial numbers to a trigger", () =>
    Effect.gen(function* () {
      expect(yield* detect("it is broken")).toBe("no-serial")
      expect(yield* detect("SN-KT2024A")).toBe("warranty:active")
      expect(yield* detect("SN-BL3300 and SN-KT2024A")).toBe("warranty:active")
      expect(yield* detect("SN-BL3300")).toBe("warranty:expired")
      expect(yield* detect("SN-NOPE99")).toBe("warranty:unknown")
    }).pipe(Effect.provide(WarrantyRegistry.fromTable(demoWarranties))))

  it.effect("a warranty service that is down is warranty:unavailable", () =>
    Effect.gen(function* () {
      expect(yield* detect("SN-KT2024A")).toBe("warranty:unavailable")
    }).pipe(Effect.provide(WarrantyRegistry.down)))
})
