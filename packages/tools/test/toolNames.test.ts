import { describe, expect, it } from "@effect/vitest"
import { safeName, uniqueNames } from "../src/internal/toolNames.js"

// Function names every provider accepts, made from MCP tool names, which may hold anything.

describe("safeName", () => {
  it("keeps letters, digits, _ and -, and replaces every other character with _", () => {
    expect(safeName("get_weather-v2")).toBe("get_weather-v2")
    expect(safeName("files.read file/é")).toBe("files_read_file__")
  })

  it("guards a name that starts with a digit or -, and an empty one", () => {
    expect(safeName("2fa")).toBe("_2fa")
    expect(safeName("-x")).toBe("_-x")
    expect(safeName("")).toBe("_")
    expect(safeName("_ok")).toBe("_ok")
    expect(safeName("Ok")).toBe("Ok")
  })

  it("cuts to 64 characters", () => {
    expect(safeName("a".repeat(70))).toBe("a".repeat(64))
    expect(safeName("1" + "a".repeat(70))).toHaveLength(64)
  })
})

describe("uniqueNames", () => {
  it("a name that would repeat an earlier one gets _2, _3, …, in order", () => {
    expect(uniqueNames(["a.b", "a_b", "a b", "c"])).toEqual(["a_b", "a_b_2", "a_b_3", "c"])
    expect(uniqueNames(["x", "x_2", "x"])).toEqual(["x", "x_2", "x_3"])
  })

  it("the suffix fits within 64 characters, cutting the name", () => {
    const long = "n".repeat(64)
    const [first, second, third] = uniqueNames([long, long, long])
    expect(first).toBe(long)
    expect(second).toBe("n".repeat(62) + "_2")
    expect(third).toBe("n".repeat(62) + "_3")
  })
})
