import { describe, expect, it } from "@effect/vitest"
import * as AppendOnly from "../src/internal/appendOnly.js"

/** Views built per test, not while the file loads (mutants reached at load would be static ones). */
const views = () => {
  const older = AppendOnly.append<string>([], ["x"])
  return { view: AppendOnly.append(AppendOnly.append<string>([], ["a"]), ["b", "c"]), older, newer: AppendOnly.append(older, ["y"]) }
}

describe("appendOnly views", () => {

  it("index keys are canonical numbers below 2^32 - 1; anything else is no index", () => {
    const { view } = views()
    const record = view as unknown as Record<string, unknown>
    expect([record["0"], record["2"], record["3"]]).toEqual(["a", "c", undefined])
    for (const key of ["01", "-0", "1.5", "-1", "", " 1", "1e0", "4294967295", "4294967296"]) {
      expect(record[key]).toBeUndefined()
      expect(key in view).toBe(false)
    }
    const ten = AppendOnly.append([], Array.from({ length: 10 }, (_, i) => i)) as unknown as Record<string, unknown>
    expect([ten["0"], ten["9"], "9" in ten, ten["10"]]).toEqual([0, 9, true, undefined])
    expect(":" in view).toBe(false)
    expect("/" in view).toBe(false)
  })

  it("has: the shown indexes, length and array methods; never the hidden keys or later items", () => {
    const { view, older } = views()
    expect([0 in view, 2 in view, 3 in view, "length" in view, "map" in view]).toEqual([true, true, false, true, true])
    expect(1 in older).toBe(false)
    expect(older[1]).toBeUndefined()
    expect(Object.getOwnPropertySymbols(view)).toEqual([])
    expect(Reflect.ownKeys(view)).toEqual(["0", "1", "2", "length"])
    expect(Reflect.ownKeys(older)).toEqual(["0", "length"])
  })

  it("describes its own properties as a frozen array would, with length writable but fixed", () => {
    const { view, older } = views()
    expect(Object.getOwnPropertyDescriptor(view, "length")).toEqual({ value: 3, writable: true, enumerable: false, configurable: false })
    expect(Object.getOwnPropertyDescriptor(view, "1")).toEqual({ value: "b", writable: false, enumerable: true, configurable: true })
    expect(Object.getOwnPropertyDescriptor(view, "3")).toBeUndefined()
    expect(Object.getOwnPropertyDescriptor(older, "1")).toBeUndefined()
    expect(Object.getOwnPropertyDescriptor(view, "map")).toBeUndefined()
  })

  it("refuses every change to itself", () => {
    const { view } = views()
    const target = view as unknown as Array<string>
    expect(Reflect.deleteProperty(target, "0")).toBe(false)
    expect(Reflect.setPrototypeOf(target, null)).toBe(false)
    expect(Reflect.preventExtensions(target)).toBe(false)
    expect(Reflect.set(target, "0", "z")).toBe(false)
    expect(Reflect.defineProperty(target, "5", { value: 1 })).toBe(false)
    expect([...view]).toEqual(["a", "b", "c"])
  })

  it("from copies a plain array once and keeps a view as it is", () => {
    const plain = ["p", "q"]
    const snapshot = AppendOnly.from(plain)
    plain.push("r")
    expect([...snapshot]).toEqual(["p", "q"])
    expect(AppendOnly.from(snapshot)).toBe(snapshot)
    expect(AppendOnly.tipOf(snapshot)).toBeDefined()
  })

  it("tipOf is the backing array of the newest snapshot only; sameBacking needs two views", () => {
    const { older, newer } = views()
    expect(AppendOnly.tipOf(newer)).toBeDefined()
    expect(AppendOnly.tipOf(older)).toBeUndefined()
    expect(AppendOnly.tipOf(["x"])).toBeUndefined()
    expect(AppendOnly.tipOf(AppendOnly.append(newer, []))).toBe(AppendOnly.tipOf(newer))
    expect(AppendOnly.sameBacking(older, newer)).toBe(true)
    expect(AppendOnly.sameBacking(["x"], ["x"])).toBe(false)
    expect(AppendOnly.sameBacking(newer, ["x", "y"])).toBe(false)
    expect(AppendOnly.sameBacking(["x", "y"], newer)).toBe(false)
    const branch = AppendOnly.append(older, ["z"])
    expect([...branch]).toEqual(["x", "z"])
    expect(AppendOnly.sameBacking(branch, newer)).toBe(false)
    expect([...newer]).toEqual(["x", "y"])
  })
})
