import { FunctionCall, FunctionResponse } from "@agentfx/core"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Policy from "../src/Policy.js"

/** The offline model's text after one call of `name` answered with `response`. */
const after = (name: string, response: Record<string, unknown>, isError = false) =>
  Policy.offline.reply({
    transcript: [
      { role: "model", parts: [FunctionCall.make({ id: "c1", name, args: {} })] },
      { role: "user", parts: [FunctionResponse.make({ id: "c1", name, response, isError })] }
    ],
    declarations: []
  } as unknown as Policy.Request)

describe("The offline rule model words tool results as sentences", () => {
  it.effect.each([
    ["calculator", { expression: "2 + 3 * 4", result: 14 }, "2 + 3 * 4 = 14."],
    [
      "clock",
      { time_zone: "Europe/Paris", date: "2026-11-23", time: "14:54:44", weekday: "Monday", utc_offset: "+01:00" },
      "It is 14:54:44 on Monday 2026-11-23 in Europe/Paris (UTC+01:00)."
    ],
    ["list_dir", { path: ".", entries: [{ name: "src", type: "directory" }, { name: "a.txt", type: "file" }], truncated: 0 }, ". holds 2 entries: src/ and a.txt."],
    ["list_dir", { path: "empty", entries: [], truncated: 0 }, "empty is empty."],
    ["read_file", { path: "notes.txt", size: 5, content: "hello" }, "notes.txt (5 bytes) reads:\nhello"],
    ["fetch_url", { url: "http://x.test/", status: 200, content_type: "text/plain", body: "hi" }, "http://x.test/ answered 200, text/plain:\nhi"],
    ["lookup", { output: 42 }, "lookup returned 42."],
    ["lookup", { city: "Oslo", celsius: 7 }, "lookup returned city Oslo and celsius 7."]
  ] as const)("%s %o", ([name, response, text]) =>
    Effect.map(after(name, response), (step) => expect(step).toEqual({ text })))

  it.effect("a failed call is said with its message, never as JSON", () =>
    Effect.map(after("read_file", { error: { message: "missing.txt does not exist." } }, true), (step) =>
      expect(step).toEqual({ text: "read_file failed: missing.txt does not exist." })))
})
