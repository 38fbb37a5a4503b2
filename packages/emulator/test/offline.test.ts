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

describe("The offline rule model reads and changes the things a tool lists", () => {
  const device = { type: "string", description: "The device's name, one of: living room lamp, kitchen thermostat, front door lock." }
  const declarations = [
    { name: "get_device_status", description: "Reads a device", parameters: { type: "object", properties: { device_name: device }, required: ["device_name"] } },
    {
      name: "set_device_status",
      description: "Changes a device",
      parameters: {
        type: "object",
        properties: {
          device_name: device,
          new_status: { type: "string", enum: ["on", "off", "locked", "unlocked"] },
          setting: { type: "object", properties: { temperature_celsius: { type: "number" }, brightness: { type: "number" }, color: { type: "string" } } }
        },
        required: ["device_name", "new_status"]
      }
    }
  ]
  /** The offline model's answer after the user said `messages`, one turn each. */
  const answer = (...messages: ReadonlyArray<string>) =>
    Policy.offline.reply({
      transcript: messages.flatMap((text, i) => [
        ...(i === 0 ? [] : [{ role: "model", parts: [{ _tag: "Text", text: "ok" }] }]),
        { role: "user", parts: [{ _tag: "Text", text }] }
      ]),
      declarations
    } as unknown as Policy.Request)

  it.effect.each([
    ["a question reads the thing it names", ["Is the living room lamp on?"], { name: "get_device_status", args: { device_name: "living room lamp" } }],
    ["the longest name wins", ["Is the front door lock locked?"], { name: "get_device_status", args: { device_name: "front door lock" } }],
    ["a question with a change word still reads", ["What's the kitchen thermostat set to?"], { name: "get_device_status", args: { device_name: "kitchen thermostat" } }],
    [
      "a change sets the thing, the values it names and the settings it gives",
      ["Turn on the living room lamp and set its brightness to 40% and its color to deep blue."],
      { name: "set_device_status", args: { device_name: "living room lamp", new_status: "on", setting: { brightness: 40, color: "deep blue" } } }
    ],
    [
      "\"it\" is the thing named before",
      ["Is the living room lamp on?", "Okay, please turn it on and set its color to blue."],
      { name: "set_device_status", args: { device_name: "living room lamp", new_status: "on", setting: { color: "blue" } } }
    ],
    [
      "a number with its unit sets the property it measures",
      ["Please set the kitchen thermostat to 22.5 degrees."],
      { name: "set_device_status", args: { device_name: "kitchen thermostat", new_status: "on", setting: { temperature_celsius: 22.5 } } }
    ]
  ] as const)("%s", ([, messages, call]) => Effect.map(answer(...messages), (step) => expect(step).toEqual({ calls: [call] })))

  it.effect("a message that names no thing, or refers back to none, gets the offline answer", () =>
    Effect.gen(function* () {
      for (const messages of [["Is the garage door open?"], ["Hello", "Turn it off."]]) {
        expect(yield* answer(...messages)).toMatchObject({ text: expect.stringContaining("I am the agentfx emulator, running offline") })
      }
    }))
})
