import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import { TopLevelFields } from "../src/internal/jsonRpcFields.js"

// The id of a message too large to hold, read from its bytes as they pass: what a client needs to answer for it.

/** The fields of `text`, fed in pieces cut at `cuts` (byte offsets). */
const scan = (text: string, cuts: ReadonlyArray<number> = []) => {
  const bytes = Buffer.from(text, "utf8")
  const fields = new TopLevelFields()
  const at = [...new Set(cuts.map((cut) => Math.min(cut, bytes.length)))].sort((a, b) => a - b)
  let from = 0
  for (const cut of [...at, bytes.length]) {
    fields.feed(bytes, from, cut)
    from = cut
  }
  return { id: fields.id, hasMethod: fields.hasMethod }
}

const id = fc.oneof(fc.integer(), fc.string({ maxLength: 40 }))

describe("TopLevelFields", () => {
  it.prop("an answer's id is found wherever it stands, however the bytes are cut", [id, fc.jsonValue(), fc.array(fc.nat(), { maxLength: 8 })], ([value, result, cuts]) => {
    expect(scan(JSON.stringify({ result, jsonrpc: "2.0", id: value }), cuts)).toEqual({ id: value, hasMethod: false })
    expect(scan(JSON.stringify({ jsonrpc: "2.0", id: value, result }), cuts)).toEqual({ id: value, hasMethod: false })
  })

  it.prop("an id or a method inside a value is never taken for the message's own", [fc.dictionary(fc.string(), fc.jsonValue()), fc.array(fc.nat(), { maxLength: 8 })], ([nested, cuts]) => {
    const message = { jsonrpc: "2.0", result: { ...nested, id: 7, method: "x" }, list: [{ id: 8 }, "id", { method: 1 }] }
    expect(scan(JSON.stringify(message), cuts)).toEqual({ id: undefined, hasMethod: false })
  })

  it("a request or notification has a method; whitespace, escapes and an id written oddly are read as JSON reads them", () => {
    expect(scan(`{"jsonrpc":"2.0","method":"notifications/message","params":{"id":3}}`)).toEqual({ id: undefined, hasMethod: true })
    expect(scan(`{"jsonrpc":"2.0","id":12,"method":"sampling/createMessage"}`)).toEqual({ id: 12, hasMethod: true })
    expect(scan(` {\n "id" :\t42 ,"result": {}}`)).toEqual({ id: 42, hasMethod: false })
    expect(scan(`{"\\u0069d":"a\\"b","result":"\\\\"}`)).toEqual({ id: 'a"b', hasMethod: false })
    expect(scan(`{"result":1,"id":-1.5e3}`)).toEqual({ id: -1500, hasMethod: false })
    // null, true or an object is no id a client sends; the last id given is the one read.
    expect(scan(`{"id":null,"error":{}}`)).toEqual({ id: undefined, hasMethod: false })
    expect(scan(`{"id":{"a":1},"result":1}`)).toEqual({ id: undefined, hasMethod: false })
    expect(scan(`{"id":1,"result":1,"id":2}`)).toEqual({ id: 2, hasMethod: false })
    // A batch (an array) or anything else has no top-level id.
    expect(scan(`[{"id":1,"result":1}]`)).toEqual({ id: undefined, hasMethod: false })
    expect(scan(`"id"`)).toEqual({ id: undefined, hasMethod: false })
  })

  it("an id longer than any a client sends is not kept; a long key is none of the ones looked for", () => {
    expect(scan(JSON.stringify({ id: "i".repeat(300), result: 1 }))).toEqual({ id: undefined, hasMethod: false })
    expect(scan(JSON.stringify({ id: 9, ["k".repeat(300)]: 1 }))).toEqual({ id: 9, hasMethod: false })
    expect(scan(`{"id":${"1".repeat(300)},"result":1}`)).toEqual({ id: undefined, hasMethod: false })
  })
})
