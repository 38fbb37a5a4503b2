/**
 * The one wording of a wrong-shaped answer, shared by every provider decode: a line naming the deepest field that
 * failed, what fits there and what came; every failed place in the details, with the value found there in full.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { JsonObject } from "../src/internal/json.js"
import { decodeServerMessage } from "../src/internal/live/wire.js"
import { decodeCompletion } from "../src/internal/openai/wire.js"
import { wrongShape } from "../src/internal/wrongShape.js"

const keep = (text: string) => text

/** The error `schema` gives `value`, worded. */
const worded = <A, I>(schema: Schema.Schema<A, I>, value: unknown, scrub = keep) => {
  const decoded = Schema.decodeUnknownEither(schema, { errors: "all" })(value)
  if (Either.isRight(decoded)) throw new Error("the value decoded")
  return wrongShape("answer", decoded.left, scrub)
}

describe("wrongShape", () => {
  it("a chat completion's wrong field is one line naming its path, what fits (null included) and what came — not the Schema's type", () => {
    const decoded = decodeCompletion({ choices: [{ message: { tool_calls: [{ function: { name: "f", arguments: 5 } }] } }] })
    if (Either.isRight(decoded)) throw new Error("the completion decoded")
    const error = wrongShape("completion", decoded.left, keep)
    expect(error).toMatchObject({
      _tag: "MalformedResponse",
      message: "unexpected completion shape: choices[0].message.tool_calls[0].function.arguments should be a string, a JSON object or null, got 5"
    })
    // The Schema's own report is kilobytes of the expected type.
    expect(decoded.left.message.length).toBeGreaterThan(2000)
    expect(error.message).not.toContain("ReadonlyArray")
  })

  it("a Live message with a field missing names it and what it should be", () => {
    const decoded = decodeServerMessage({ toolCall: { functionCalls: [{ id: "c1", args: {} }] } })
    if (Either.isRight(decoded)) throw new Error("the message decoded")
    expect(wrongShape("Live message", decoded.left, keep).message).toBe(
      "unexpected Live message shape: toolCall.functionCalls[0].name is missing (it should be a string)"
    )
  })

  it("the whole answer of the wrong kind is named as the message; containers are named by kind, strings cut short", () => {
    const Answer = Schema.Struct({ text: Schema.String })
    expect(worded(Answer, "x").message).toBe('unexpected answer shape: the message should be an object, got "x"')
    expect(worded(Answer, { text: ["a", "b"] }).message).toBe("unexpected answer shape: text should be a string, got an array of 2")
    expect(worded(Answer, { text: { a: 1 } }).message).toBe("unexpected answer shape: text should be a string, got an object")
    expect(worded(Answer, [1]).message).toBe("unexpected answer shape: the message should be an object, got an array of 1")
    expect(worded(Schema.Struct({ n: Schema.Number }), { n: "z".repeat(100) }).message).toBe(`unexpected answer shape: n should be a number, got "${"z".repeat(38)}…`)
  })

  it("literals, JSON objects and keys that are not names read plainly", () => {
    expect(worded(Schema.Struct({ role: Schema.Literal("user", "model") }), { role: "tool" }).message).toBe(
      'unexpected answer shape: role should be "user" or "model", got "tool"'
    )
    expect(worded(Schema.Struct({ args: JsonObject }), { args: [] }).message).toBe("unexpected answer shape: args should be a JSON object, got an array of 0")
    expect(worded(Schema.Record({ key: Schema.String, value: Schema.Number }), { "a b": "c" }).message).toBe('unexpected answer shape: ["a b"] should be a number, got "c"')
    expect(worded(Schema.Struct({ ok: Schema.Boolean }), { ok: 1 }).message).toBe("unexpected answer shape: ok should be a boolean, got 1")
  })

  it("the details list every place that failed, one a line, each with the value found there in full", () => {
    const Answer = Schema.Struct({ a: Schema.String, b: Schema.Struct({ c: Schema.Number }) })
    const error = worded(Answer, { a: { deep: [1, 2, 3] }, b: { c: "7" } })
    // The deepest place is the headline; each place is in the details.
    expect(error.message).toBe('unexpected answer shape: b.c should be a number, got "7"')
    expect(error.details).toBe(['a should be a string, got {"deep":[1,2,3]}', 'b.c should be a number, got "7"'].join("\n"))
  })

  it("what the server echoed is scrubbed from the message and the details", () => {
    const error = worded(Schema.Struct({ n: Schema.Number }), { n: "sk-secret" }, (text) => text.replaceAll("sk-secret", "[redacted]"))
    expect(error.message).toBe('unexpected answer shape: n should be a number, got "[redacted]"')
    expect(error.details).toBe('n should be a number, got "[redacted]"')
  })
})
