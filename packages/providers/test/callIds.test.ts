/**
 * Ids for calls the provider gave none, driven directly: numbered by the calls of the whole conversation, so the
 * same transcript always gives the same ids, and never one the conversation or the answer already holds.
 */
import type { Transcript } from "@agentfx/core"
import { describe, expect, it } from "@effect/vitest"
import { countCalls, idsOf, idSource, idSourceAfter } from "../src/internal/ids.js"
import * as Parts from "../src/internal/parts.js"

const call = (id: string) => Parts.functionCall({ id, name: "f", args: {} })
const transcript: Transcript.Transcript = [
  { role: "user", parts: [Parts.text("hi")] },
  { role: "model", parts: [Parts.text("calling"), call("call_1"), call("x")] },
  { role: "user", parts: [Parts.functionResponse({ id: "call_1", name: "f", response: {}, isError: false }), Parts.functionResponse({ id: "x", name: "f", response: {}, isError: false })] },
  { role: "model", parts: [call("call_3")] }
]

describe("call ids", () => {
  it("counts the calls of a transcript and collects their ids", () => {
    expect(countCalls(transcript)).toBe(3)
    expect(countCalls([])).toBe(0)
    expect([...idsOf(transcript)]).toEqual(["call_1", "x", "call_3"])
  })

  it("numbers after the calls before, from position 0, skipping ids taken with _2, _3, …", () => {
    const source = idSource("call_", 3, () => new Set(["call_4", "call_5", "call_5_2"]))
    expect(source.next(0)).toBe("call_4_2")
    expect(source.next(1)).toBe("call_5_3")
    expect(source.next(2)).toBe("call_6")
    // An id it gave is taken too.
    expect(source.next(2)).toBe("call_6_2")
  })

  it("asks for the taken ids once, and only when an id is needed", () => {
    let asked = 0
    const source = idSource("c", 0, () => {
      asked++
      return new Set<string>()
    })
    expect(asked).toBe(0)
    expect([source.next(0), source.next(1)]).toEqual(["c1", "c2"])
    expect(asked).toBe(1)
  })

  it("after a transcript: the same ids for the same transcript, never one it or the answer holds", () => {
    const ids = (reserved: ReadonlyArray<string>) => {
      const source = idSourceAfter("call_", transcript, reserved)
      return [source.next(0), source.next(1)]
    }
    expect(ids([])).toEqual(["call_4", "call_5"])
    expect(ids([])).toEqual(ids([]))
    expect(ids(["call_4"])).toEqual(["call_4_2", "call_5"])
    const clash: Transcript.Transcript = [{ role: "model", parts: [call("call_2")] }]
    expect(idSourceAfter("call_", clash, []).next(0)).toBe("call_2_2")
  })
})
