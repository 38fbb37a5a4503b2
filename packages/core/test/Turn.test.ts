import { describe, expect, it } from "@effect/vitest"
import { Either, Schema } from "effect"
import { FunctionCall, FunctionDeclaration, FunctionResponse, Turn } from "../src/index.js"

const call = FunctionCall.make({ id: "c1", name: "add", args: { a: 1 } })
const response = FunctionResponse.make({ id: "c1", name: "add", response: { output: 2 }, isError: false })
const decodes = <A, I>(schema: Schema.Schema<A, I>, value: unknown) => Either.isRight(Schema.decodeUnknownEither(schema)(value))

describe("Turn", () => {
  it("user and model make one-text turns of their role", () => {
    expect(Turn.user("hi")).toEqual({ role: "user", parts: [{ _tag: "Text", text: "hi" }] })
    expect(Turn.model("hello")).toEqual({ role: "model", parts: [{ _tag: "Text", text: "hello" }] })
  })

  it("text joins the text parts only; calls and responses pick their parts, in order", () => {
    const turn: Turn.Turn = {
      role: "model",
      parts: [
        { _tag: "Text", text: "a" },
        { _tag: "Reasoning", text: "thinking" },
        call,
        response,
        { _tag: "Text", text: "b" },
        { _tag: "Opaque", provider: "p", data: "text" },
        { ...call, id: "c2" }
      ]
    }
    expect(Turn.text(turn)).toBe("ab")
    expect(Turn.text({ role: "model", parts: [call] })).toBe("")
    expect(Turn.calls(turn)).toEqual([call, { ...call, id: "c2" }])
    expect(Turn.responses(turn)).toEqual([response])
    expect(Turn.calls(Turn.user("x"))).toEqual([])
  })

  it("the Schema reads every kind of part and both roles, and nothing else", () => {
    const parts = [
      { _tag: "Text", text: "t", metadata: { k: 1 } },
      { _tag: "Reasoning", text: "r" },
      { _tag: "FunctionCall", id: "c", name: "f", args: {} },
      { _tag: "FunctionResponse", id: "c", name: "f", response: {}, isError: true },
      { _tag: "Opaque", provider: "p", data: [1] }
    ]
    expect(decodes(Turn.Turn, { role: "user", parts })).toBe(true)
    expect(decodes(Turn.Turn, { role: "model", parts: [] })).toBe(true)
    expect(decodes(Turn.Turn, { role: "system", parts: [] })).toBe(false)
    expect(decodes(Turn.Turn, { role: "user", parts: [{ _tag: "Image", data: "" }] })).toBe(false)
    expect(decodes(Turn.Turn, { role: "user", parts: [{ _tag: "Text", text: 1 }] })).toBe(false)
    expect(decodes(Turn.Turn, { role: "user", parts: [{ _tag: "Reasoning" }] })).toBe(false)
    expect(decodes(Turn.Turn, { role: "user", parts: [{ _tag: "Opaque", data: 1 }] })).toBe(false)
  })
})

describe("function calls and responses", () => {
  it("a call needs a non-empty id and an object of arguments", () => {
    expect(decodes(FunctionCall.FunctionCall, { _tag: "FunctionCall", id: "c", name: "f", args: {}, metadata: { x: 1 } })).toBe(true)
    expect(decodes(FunctionCall.FunctionCall, { _tag: "FunctionCall", id: "", name: "f", args: {} })).toBe(false)
    expect(decodes(FunctionCall.FunctionCall, { _tag: "FunctionCall", id: "c", name: "f", args: [] })).toBe(false)
    expect(decodes(FunctionCall.FunctionCall, { _tag: "FunctionCall", id: "c", args: {} })).toBe(false)
    expect(decodes(FunctionCall.FunctionCall, { _tag: "FunctionCall", id: "c", name: "f", args: {}, metadata: [] })).toBe(false)
    expect(call).toEqual({ _tag: "FunctionCall", id: "c1", name: "add", args: { a: 1 } })
  })

  it("argumentsError is the provider's reason kept in the call's metadata, when it is a string", () => {
    expect(FunctionCall.argumentsErrorKey).toBe("argumentsError")
    expect(FunctionCall.argumentsError(call)).toBeUndefined()
    expect(FunctionCall.argumentsError({ ...call, metadata: { argumentsError: "bad JSON" } })).toBe("bad JSON")
    expect(FunctionCall.argumentsError({ ...call, metadata: { argumentsError: 1 } })).toBeUndefined()
    expect(FunctionCall.argumentsError({ ...call, metadata: { other: "x" } })).toBeUndefined()
  })

  it("a response needs a non-empty id, an object and isError", () => {
    expect(response).toEqual({ _tag: "FunctionResponse", id: "c1", name: "add", response: { output: 2 }, isError: false })
    expect(decodes(FunctionResponse.FunctionResponse, { ...response, metadata: { k: "v" } })).toBe(true)
    expect(decodes(FunctionResponse.FunctionResponse, { ...response, id: "" })).toBe(false)
    expect(decodes(FunctionResponse.FunctionResponse, { ...response, response: "x" })).toBe(false)
    expect(decodes(FunctionResponse.FunctionResponse, { ...response, isError: "no" })).toBe(false)
    expect(decodes(FunctionResponse.FunctionResponse, { ...response, name: 1 })).toBe(false)
  })

  it("a declaration has a name, a description, object parameters and maybe a behavior", () => {
    const declaration = { name: "f", description: "d", parameters: { type: "object" } }
    expect(decodes(FunctionDeclaration.FunctionDeclaration, declaration)).toBe(true)
    expect(decodes(FunctionDeclaration.FunctionDeclaration, { ...declaration, behavior: "nonBlocking" })).toBe(true)
    expect(decodes(FunctionDeclaration.FunctionDeclaration, { ...declaration, behavior: "blocking" })).toBe(true)
    expect(decodes(FunctionDeclaration.FunctionDeclaration, { ...declaration, behavior: "later" })).toBe(false)
    expect(decodes(FunctionDeclaration.FunctionDeclaration, { ...declaration, description: undefined })).toBe(false)
    expect(decodes(FunctionDeclaration.FunctionDeclaration, { ...declaration, parameters: [] })).toBe(false)
    expect(decodes(FunctionDeclaration.FunctionDeclaration, { ...declaration, name: undefined })).toBe(false)
  })
})
