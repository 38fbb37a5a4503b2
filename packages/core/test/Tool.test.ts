import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Either, Option, Schema } from "effect"
import { Tool } from "../src/index.js"

const context = Tool.context("c1", "t")
const failureOf = <A>(effect: Effect.Effect<A, Tool.HandlerFailure>) => Effect.runSync(Effect.flip(effect))
/** What `f` throws (toThrow would also pass for a thrown undefined). */
const thrown = (f: () => unknown): unknown => {
  try {
    f()
  } catch (error) {
    return error
  }
  throw new Error("nothing was thrown")
}
const decoded = (tool: Tool.Tool, args: Record<string, unknown>) => Either.mapLeft(tool.decode(args), (issues) => issues.map((i) => `${i.path}: ${i.message}`))

describe("Tool names", () => {
  it("a name starts with a letter or _, holds letters, digits, _ and -, and is 1 to 64 characters", () => {
    for (const name of ["a", "Z", "_", "get_weather", "a-b", "A9", "x".repeat(64), "_0-z"]) {
      expect(Tool.validateName(name)).toEqual(Either.right(name))
    }
    for (const name of ["", "9a", "-a", "a b", "a.b", "x".repeat(65), "ab$", " a", "a\n"]) {
      expect(Either.isLeft(Tool.validateName(name))).toBe(true)
    }
  })

  it("a bad name is InvalidToolDefinition whose message names the tool and the rule", () => {
    const error = Either.getLeft(Tool.validateName("bad name")).pipe(Option.getOrThrow)
    expect(error.message).toBe('tool "bad name": a name starts with a letter or _, holds only letters, digits, _ and -, and is at most 64 characters')
    const fromMake = thrown(() => Tool.make("9", { description: "", parameters: Schema.Struct({}), handler: () => Effect.void }))
    expect(fromMake).toBeInstanceOf(Tool.InvalidToolDefinition)
    expect(fromMake).toMatchObject({ _tag: "InvalidToolDefinition", name: "9" })
  })
})

describe("Tool.make", () => {
  it("declares its name, description and normalised parameters; no timeout unless given", () => {
    const tool = Tool.make("add", { description: "Adds", parameters: Schema.Struct({ a: Schema.Number }), handler: ({ a }) => Effect.succeed(a) })
    expect(tool.declaration).toEqual({
      name: "add",
      description: "Adds",
      parameters: { type: "object", properties: { a: { type: "number" } }, required: ["a"], additionalProperties: false }
    })
    expect(tool.description).toBe("Adds")
    expect(Option.isNone(tool.timeout)).toBe(true)
    expect("scheduling" in tool).toBe(false)
    const timed = Tool.make("t", { description: "", parameters: Schema.Struct({}), timeout: "2 seconds", handler: () => Effect.void })
    expect(timed.timeout).toEqual(Option.some(Duration.seconds(2)))
  })

  it("parameters that are not an object are InvalidToolDefinition with Dialect's reason", () => {
    const error = thrown(() => Tool.make("t", { description: "", parameters: Schema.String, handler: () => Effect.void }))
    expect(error).toBeInstanceOf(Tool.InvalidToolDefinition)
    expect(error).toMatchObject({ name: "t", reason: 'parameters must be an object schema, got "string"' })
  })

  it("parameters without a JSON Schema form are InvalidToolDefinition saying so", () => {
    const opaque = Schema.declare((value: unknown): value is Date => value instanceof Date)
    const error = thrown(() => Tool.make("t", { description: "", parameters: Schema.Struct({ at: opaque }), handler: () => Effect.void }))
    expect(error).toBeInstanceOf(Tool.InvalidToolDefinition)
    expect((error as Tool.InvalidToolDefinition).reason).toMatch(/^its parameters Schema has no JSON Schema form: Missing annotation/)
  })

  it("decodes every issue at once and refuses unknown properties", () => {
    const tool = Tool.make("t", { description: "", parameters: Schema.Struct({ a: Schema.Number, b: Schema.String }), handler: () => Effect.void })
    expect(decoded(tool, { a: 1, b: "x" })).toEqual(Either.right({ a: 1, b: "x" }))
    expect(decoded(tool, { a: "1" })).toEqual(Either.left(["a: Expected number, actual \"1\"", "b: is missing"]))
    expect(Either.isLeft(tool.decode({ a: 1, b: "x", c: true }))).toBe(true)
  })

  it("needsApproval: never by default or with false, always with true, else the predicate on the arguments", () => {
    const make = (needsApproval?: boolean | ((args: { readonly n: number }) => boolean)) =>
      Tool.make("t", { description: "", parameters: Schema.Struct({ n: Schema.Number }), handler: () => Effect.void, ...(needsApproval === undefined ? {} : { needsApproval }) })
    expect([make().needsApproval({ n: 1 }), make(false).needsApproval({ n: 1 }), make(true).needsApproval({ n: 1 })]).toEqual([false, false, true])
    const big = make(({ n }) => n > 10)
    expect([big.needsApproval({ n: 1 }), big.needsApproval({ n: 11 })]).toEqual([false, true])
  })

  it("run gives the handler the call's context and encodes the result with the success Schema", () => {
    const seen: Array<Tool.ToolContext> = []
    const tool = Tool.make("t", {
      description: "",
      parameters: Schema.Struct({}),
      success: Schema.DateFromString,
      handler: (_, ctx) => Effect.sync(() => (seen.push(ctx), new Date(0)))
    })
    expect(Effect.runSync(tool.run({}, context))).toBe("1970-01-01T00:00:00.000Z")
    expect(seen).toEqual([context])
  })

  it("a result the success Schema refuses, or one that is not JSON, is a defect saying why", () => {
    const liar = Tool.make("t", { description: "", parameters: Schema.Struct({}), success: Schema.Struct({ n: Schema.Number }), handler: () => Effect.succeed({ n: "7" } as never) })
    expect(failureOf(liar.run({}, context))).toEqual({ cause: { message: 'the result does not match the success Schema: n: Expected number, actual "7"' }, defect: true })
    const whole = Tool.make("t", { description: "", parameters: Schema.Struct({}), success: Schema.Number, handler: () => Effect.succeed("7" as never) })
    expect(failureOf(whole.run({}, context))).toEqual({ cause: { message: 'the result does not match the success Schema: Expected number, actual "7"' }, defect: true })
    const either = Tool.make("t", {
      description: "",
      parameters: Schema.Struct({}),
      success: Schema.Union(Schema.Struct({ a: Schema.Number }), Schema.Struct({ b: Schema.String })),
      handler: () => Effect.succeed({ a: "x" } as never)
    })
    expect(failureOf(either.run({}, context))).toEqual({
      cause: { message: 'the result does not match the success Schema: a: Expected number, actual "x"; b: is missing' },
      defect: true
    })
    const big = Tool.make("t", { description: "", parameters: Schema.Struct({}), handler: () => Effect.succeed(10n) })
    expect(failureOf(big.run({}, context))).toMatchObject({ cause: { message: expect.stringMatching(/^the result is not JSON: /) }, defect: true })
  })

  it("a failure without a failure Schema is described; with one it is encoded, keeping a custom message", () => {
    const plain = Tool.make("t", { description: "", parameters: Schema.Struct({}), handler: () => Effect.fail(new RangeError("too far")) as Effect.Effect<never, never> })
    expect(failureOf(plain.run({}, context))).toEqual({ cause: { message: "too far", type: "RangeError" }, defect: false })

    class Custom extends Schema.TaggedError<Custom>()("Custom", { n: Schema.Number }) {
      override get message() {
        return `custom ${this.n}`
      }
    }
    class Default extends Schema.TaggedError<Default>()("Default", { n: Schema.Number }) {}
    class Said extends Schema.TaggedError<Said>()("Said", { message: Schema.String }) {
      override get message() {
        return "not this one"
      }
    }
    const failing = <E, I>(failure: Schema.Schema<E, I>, error: E) =>
      failureOf(Tool.make("t", { description: "", parameters: Schema.Struct({}), failure, handler: () => Effect.fail(error) }).run({}, context))
    expect(failing(Custom, new Custom({ n: 1 }))).toEqual({ cause: { _tag: "Custom", n: 1, message: "custom 1" }, defect: false })
    expect(failing(Default, new Default({ n: 1 }))).toStrictEqual({ cause: { _tag: "Default", n: 1 }, defect: false })
    class Silent extends Schema.TaggedError<Silent>()("Silent", { n: Schema.Number }) {
      override get message() {
        return ""
      }
    }
    expect(failing(Silent, new Silent({ n: 1 }))).toStrictEqual({ cause: { _tag: "Silent", n: 1 }, defect: false })
    // An encoding with its own message keeps it, whatever the error's getter says.
    class Renamed extends Error {
      override get message() {
        return "the getter's"
      }
    }
    const withMessage = Schema.transform(Schema.Struct({ message: Schema.String }), Schema.instanceOf(Renamed), {
      strict: true,
      decode: () => new Renamed(),
      encode: () => ({ message: "the encoding's" })
    })
    expect(failing(withMessage, new Renamed())).toStrictEqual({ cause: { message: "the encoding's" }, defect: false })
    expect(failing(Said, new Said({ message: "mine" }))).toEqual({ cause: { _tag: "Said", message: "mine" }, defect: false })
    // An encoded failure that is not an object keeps its own form; one that is not JSON is described instead.
    class Wrapped extends Error {
      override get message() {
        return "wrapped"
      }
    }
    const asText = Schema.transform(Schema.String, Schema.instanceOf(Wrapped), { strict: true, decode: () => new Wrapped(), encode: (e) => e.message })
    expect(failing(asText, new Wrapped())).toEqual({ cause: "wrapped", defect: false })
    expect(failing(Schema.Unknown, 10n)).toEqual({ cause: "10", defect: false })
    expect(failing(Schema.Number, "x" as never)).toEqual({ cause: "x", defect: false })
  })
})

describe("Tool.fromFunction", () => {
  const run = (tool: Tool.Tool, args: Record<string, unknown> = {}) => tool.run(args, context)
  const made = (spec: Tool.FunctionSpec | Tool.FunctionSpec["run"], name = "f") => Either.getOrThrow(Tool.fromFunction(name, spec))

  it("a bare function takes any arguments, has no description, timeout or approval, and is blocking", () => {
    const tool = made((args) => args)
    expect(tool.declaration).toEqual({ name: "f", description: "", parameters: { type: "object", properties: {}, additionalProperties: true } })
    expect(tool.description).toBe("")
    expect(Option.isNone(tool.timeout)).toBe(true)
    expect(tool.needsApproval({})).toBe(false)
    expect("scheduling" in tool).toBe(false)
    expect(tool.decode({ any: 1 })).toEqual(Either.right({ any: 1 }))
  })

  it("a spec gives the description, parameters, timeout and approval", () => {
    const tool = made({ description: "Sums", parameters: { type: "object", properties: { a: { type: "number" } } }, timeout: "1 second", needsApproval: true, run: () => 1 })
    expect(tool.declaration.description).toBe("Sums")
    expect(tool.description).toBe("Sums")
    expect(tool.declaration.parameters).toMatchObject({ properties: { a: { type: "number" } } })
    expect(tool.timeout).toEqual(Option.some(Duration.seconds(1)))
    expect(tool.needsApproval({})).toBe(true)
  })

  it("a bad name or parameters that are not an object are InvalidToolDefinition", () => {
    expect(Either.getLeft(Tool.fromFunction("a b", () => 1)).pipe(Option.map((e) => e.name))).toEqual(Option.some("a b"))
    const error = Either.getLeft(Tool.fromFunction("f", { parameters: { type: "string" }, run: () => 1 }))
    expect(error.pipe(Option.map((e) => [e._tag, e.name]))).toEqual(Option.some(["InvalidToolDefinition", "f"]))
  })

  it.effect("results sync and async; a throw or a rejection is a failure, a non-JSON result a defect", () =>
    Effect.gen(function* () {
      expect(yield* run(made(({ a }) => Number(a) * 2), { a: 2 })).toBe(4)
      expect(yield* run(made(async () => ({ ok: true })))).toEqual({ ok: true })
      expect(yield* run(made(() => null))).toBe(null)
      const thrown = yield* Effect.flip(run(made(() => {
        throw new TypeError("bad")
      })))
      expect(thrown).toEqual({ cause: { message: "bad", type: "TypeError" }, defect: false })
      expect(yield* Effect.flip(run(made(() => Promise.reject("no"))))).toEqual({ cause: "no", defect: false })
      expect(yield* Effect.flip(run(made(() => Promise.resolve(10n))))).toMatchObject({ cause: { message: expect.stringMatching(/^the result is not JSON: /) }, defect: true })
    }))

  it.effect("the function is given the call's context and an abort signal", () =>
    Effect.gen(function* () {
      const seen = yield* run(made((_, ctx) => ({ callId: ctx.callId, name: ctx.name, signal: ctx.signal instanceof AbortSignal })))
      expect(seen).toEqual({ callId: "c1", name: "t", signal: true })
    }))
})
