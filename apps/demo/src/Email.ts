/**
 * A raw customer e-mail: headers (`From`, `Subject`, others ignored), a blank line, the body. Malformed input is
 * an `EmailParseError` that says what is wrong and on which line.
 */
import { Either, Schema } from "effect"

export class EmailParseError extends Schema.TaggedError<EmailParseError>()("EmailParseError", {
  reason: Schema.String,
  line: Schema.optional(Schema.Number)
}) {
  override get message(): string {
    return this.line === undefined ? `malformed e-mail: ${this.reason}` : `malformed e-mail, line ${this.line}: ${this.reason}`
  }
}

export interface Email {
  readonly from: string
  /** The bare address of `from` (inside `<...>` when a display name is given). */
  readonly address: string
  readonly subject: string
  readonly body: string
}

const addressPattern = /^[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+$/

/** Parses a raw e-mail. Header names are case-insensitive; folded header lines are not supported. */
export const parse = (raw: string): Either.Either<Email, EmailParseError> => {
  const lines = raw.replace(/\r\n?/g, "\n").split("\n")
  const headers = new Map<string, string>()
  let index = 0
  for (; index < lines.length; index++) {
    const line = lines[index]!
    if (line.trim() === "") break
    const colon = line.indexOf(":")
    if (colon <= 0) return Either.left(new EmailParseError({ reason: `expected a "Name: value" header, got ${JSON.stringify(line.slice(0, 60))}`, line: index + 1 }))
    headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim())
  }
  if (index === lines.length) return Either.left(new EmailParseError({ reason: "no blank line between the headers and the body" }))
  const from = headers.get("from")
  if (from === undefined || from === "") return Either.left(new EmailParseError({ reason: "the From header is missing" }))
  const address = /<([^>]*)>/.exec(from)?.[1]?.trim() ?? from
  if (!addressPattern.test(address)) return Either.left(new EmailParseError({ reason: `the From header holds no valid address: ${JSON.stringify(from)}` }))
  const subject = headers.get("subject")
  if (subject === undefined) return Either.left(new EmailParseError({ reason: "the Subject header is missing" }))
  const body = lines.slice(index + 1).join("\n").trim()
  if (body === "") return Either.left(new EmailParseError({ reason: "the body is empty" }))
  return Either.right({ from, address, subject, body })
}

/** Serial numbers as printed on our products: `SN-` and 4 to 12 letters or digits. */
export const serialNumbers = (email: Email): ReadonlyArray<string> => [
  ...new Set([...`${email.subject}\n${email.body}`.matchAll(/\bSN-[A-Z0-9]{4,12}\b/gi)].map((m) => m[0]!.toUpperCase()))
]
