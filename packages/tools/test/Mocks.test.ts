import { Executor, FunctionCall, Registry, Tool } from "@agentfx/core"
import { NodeFileSystem } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Schema } from "effect"
import { Mocks } from "../src/index.js"

const file = `# the smart home's devices, as the mocks say
get_device_status:
  - when: { device_name: living room lamp }
    response: { device_name: living room lamp, status: "off" }
  - error: there is no such device
set_device_status:
  response: { status: "on" }
`

const getDeviceStatus = Tool.make("get_device_status", {
  description: "Reads a device",
  parameters: Schema.Struct({ device_name: Schema.String }),
  handler: () => Effect.succeed({ real: true })
})
const setDeviceStatus = Tool.make("set_device_status", {
  description: "Changes a device",
  parameters: Schema.Struct({ device_name: Schema.String, new_status: Schema.String }),
  handler: () => Effect.succeed({ real: true })
})
const clock = Tool.make("clock", { description: "The time", parameters: Schema.Struct({}), handler: () => Effect.succeed("noon") })

const call = (registry: Registry.Registry, name: string, args: Record<string, unknown>) => Effect.either(Executor.execute(registry, FunctionCall.make({ id: "c", name, args })))

describe("Mocks", () => {
  it("a mocks file maps function names to one outcome or a list, always a list once read", () => {
    expect(Mocks.parse(file, "home.mocks.yaml")).toEqual(
      Either.right({
        get_device_status: [{ when: { device_name: "living room lamp" }, response: { device_name: "living room lamp", status: "off" } }, { error: "there is no such device" }],
        set_device_status: [{ response: { status: "on" } }]
      })
    )
  })

  it.each([
    ["a list", "- response: 1\n", { line: 1, reason: "a mocks file is a mapping of function names to their responses" }],
    ["an entry with neither response nor error", "f:\n  when: { a: 1 }\n", { line: 1, field: "f", reason: "give a `response` to return or an `error` to raise" }],
    ["an entry after one that answers every call", "f:\n  - response: 1\n  - when: { a: 1 }\n    response: 2\n", { line: 3, field: "f[1]" }],
    ["a misspelt field", "f:\n  respons: 1\n", { line: 2, field: "f.respons" }],
    ["YAML that does not parse", "f: [\n", { line: 2 }]
  ])("refuses %s, naming the file, line and field", (_, text, problem) => {
    const error = Either.getOrThrowWith(Either.flip(Mocks.parse(text, "m.yaml")), () => new Error("parsed"))
    expect(error).toMatchObject({ _tag: "MocksFileError", file: "m.yaml", ...problem })
    expect(error.message).toMatch(/^m\.yaml:\d+: /)
  })

  it.effect("apply mocks the tools it names, in place: declarations and argument checks stay; the others run for real", () =>
    Effect.gen(function* () {
      const registry = Mocks.apply(Registry.unsafeMake(getDeviceStatus, clock, setDeviceStatus), Either.getOrThrow(Mocks.parse(file, "m.yaml")), "the mocks file")
      expect(registry.names).toEqual(["get_device_status", "clock", "set_device_status"])
      expect(registry.declarations).toEqual([getDeviceStatus.declaration, clock.declaration, setDeviceStatus.declaration])
      expect(yield* call(registry, "get_device_status", { device_name: "living room lamp" })).toEqual(Either.right({ device_name: "living room lamp", status: "off" }))
      expect(yield* call(registry, "get_device_status", { device_name: "garage" })).toMatchObject(Either.left({ _tag: "ExecutionFailed", cause: { message: "there is no such device" } }))
      expect(yield* call(registry, "set_device_status", { device_name: "lamp" })).toMatchObject(Either.left({ _tag: "InvalidArguments" }))
      expect(yield* call(registry, "clock", {})).toEqual(Either.right("noon"))
      const only = Mocks.apply(Registry.unsafeMake(getDeviceStatus), { get_device_status: [{ when: { device_name: "x" }, response: 1 }] }, "the mocks file")
      expect(yield* call(only, "get_device_status", { device_name: "y" })).toMatchObject(
        Either.left({ cause: { message: 'the mocks file gives no mock response for get_device_status with these arguments: {"device_name":"y"}' } })
      )
    }))

  it.effect("load reads a file; one that does not exist is a MocksFileError naming it", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(Mocks.load("no/such/mocks.yaml"))
      expect(error).toMatchObject({ _tag: "MocksFileError", file: "no/such/mocks.yaml" })
      expect(error.message).toMatch(/^no\/such\/mocks\.yaml: /)
    }).pipe(Effect.provide(NodeFileSystem.layer)))
})
