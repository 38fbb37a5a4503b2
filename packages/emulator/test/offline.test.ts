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

describe("The offline rule model calls the tool a message plainly asks for, with arguments from the message", () => {
  const tool = (name: string, properties: Record<string, unknown>, required?: ReadonlyArray<string>) => ({
    name,
    description: name,
    parameters: { type: "object", properties, ...(required === undefined ? {} : { required }) }
  })
  const string = { type: "string" }
  const clock = tool("clock", { timeZone: string }, ["timeZone"])
  const calculator = tool("calculator", { expression: string }, ["expression"])
  const fetcher = tool("fetch_url", { url: string }, ["url"])
  const lister = tool("list_dir", { path: string }, ["path"])
  const reader = tool("read_file", { path: string }, ["path"])
  const all = [clock, calculator, fetcher, lister, reader]
  const reply = (message: string, declarations: ReadonlyArray<unknown> = all, toolChoice?: string) =>
    Policy.offline.reply({ transcript: [{ role: "user", parts: [{ _tag: "Text", text: message }] }], declarations, toolChoice } as unknown as Policy.Request)

  it.effect.each([
    ["What time is it in Europe/Oslo?", "clock", { timeZone: "Europe/Oslo" }],
    ["What's the time in America/Argentina/Buenos_Aires right now?", "clock", { timeZone: "America/Argentina/Buenos_Aires" }],
    ["What is the date today?", "clock", { timeZone: "UTC" }],
    ["Please calculate (2 + 3) * 4, thanks", "calculator", { expression: "(2 + 3) * 4" }],
    ["what is 12*3?", "calculator", { expression: "12*3" }],
    ["How much is -7 + 2?", "calculator", { expression: "-7 + 2" }],
    ["Fetch https://example.com/a?b=1.", "fetch_url", { url: "https://example.com/a?b=1" }],
    ["See (http://x.test/page), please", "fetch_url", { url: "http://x.test/page" }],
    ["List the files in src/lib", "list_dir", { path: "src/lib" }],
    ["List the files under ./docs.", "list_dir", { path: "./docs" }],
    ["List the files in this folder", "list_dir", { path: "." }],
    ["list files", "list_dir", { path: "." }],
    ["Please show me notes/todo.md", "read_file", { path: "notes/todo.md" }],
    ["Read ../a/b.txt now", "read_file", { path: "../a/b.txt" }],
    ["run read_file", "read_file", { path: "." }]
  ] as const)("%s → %s %o", ([message, name, args]) => Effect.map(reply(message), (step) => expect(step).toEqual({ calls: [{ name, args }] })))

  it.effect("a tool the message names is called first, its parameters filled by type: numbers, booleans, enums", () =>
    Effect.gen(function* () {
      const lookup = tool(
        "lookup_order",
        { order_id: { type: "integer" }, amount: { type: "number" }, express: { type: "boolean" }, size: { type: "string", enum: ["small", "large"] }, colour: { type: "string", enum: ["red", "blue"] } },
        ["order_id", "amount", "express", "size", "colour"]
      )
      expect(yield* reply("What time was lookup_order 42 placed? It cost -3.5, make it Large", [clock, lookup])).toEqual({
        calls: [{ name: "lookup_order", args: { order_id: 42, amount: 42, express: false, size: "large", colour: "red" } }]
      })
      expect(yield* reply("use lookup_order", [lookup])).toMatchObject({ calls: [{ args: { order_id: 0, amount: 0 } }] })
    }))

  it.effect("without required parameters, those whose names say what they hold; folders by name, and paths when listing", () =>
    Effect.gen(function* () {
      const loose = tool("list_dir", { dir: string, tz: string, limit: { type: "integer" } })
      expect(yield* reply("list the files of docs/api", [loose])).toEqual({ calls: [{ name: "list_dir", args: { dir: "docs/api", tz: "UTC" } }] })
      const reading = tool("cat_file", { file: string, source_url: string, note: string })
      expect(yield* reply("cat notes.txt from https://a.test/x", [reading])).toEqual({ calls: [{ name: "cat_file", args: { file: "notes.txt", source_url: "https://a.test/x" } }] })
    }))

  it.effect("tool choice none, no tool that fits, or no tools: the offline answer, naming the tools", () =>
    Effect.gen(function* () {
      expect(yield* reply("What time is it?", [clock, calculator], "none")).toEqual({
        text: "I am the agentfx emulator, running offline (no API key is set), so I cannot really answer that. I can call the tools I was given when you ask for them plainly: clock, calculator."
      })
      expect(yield* reply("What time is it?", [calculator])).toMatchObject({ text: expect.stringContaining("ask for them plainly: calculator.") })
      expect(yield* reply("Hello", [])).toEqual({
        text: "I am the agentfx emulator, running offline (no API key is set), so I cannot really answer that. I was given no tools."
      })
    }))

  it.effect("the last words of the user count: not a later model turn, nor a turn of tool results", () =>
    Effect.gen(function* () {
      const step = yield* Policy.offline.reply({
        transcript: [
          { role: "user", parts: [{ _tag: "Text", text: "What time is it in Asia/Tokyo?" }] },
          { role: "model", parts: [FunctionCall.make({ id: "c1", name: "calculator", args: {} })] },
          { role: "user", parts: [FunctionResponse.make({ id: "c1", name: "calculator", response: { result: 1 }, isError: false })] },
          { role: "model", parts: [{ _tag: "Text", text: "Please calculate 1 + 1" }] }
        ],
        declarations: all
      } as unknown as Policy.Request)
      expect(step).toEqual({ calls: [{ name: "clock", args: { timeZone: "Asia/Tokyo" } }] })
    }))
})

describe("The offline rule model finds the thing a message names, and the tool for it", () => {
  const device = (description: string) => ({ type: "string", description })
  const reply = (declarations: ReadonlyArray<unknown>, ...turns: ReadonlyArray<readonly ["user" | "model", string]>) =>
    Policy.offline.reply({ transcript: turns.map(([role, text]) => ({ role, parts: [{ _tag: "Text", text }] })), declarations } as unknown as Policy.Request)
  const getter = (name: string, subject: unknown) => ({ name, description: name, parameters: { type: "object", properties: { device_name: subject }, required: ["device_name"] } })
  const lamps = device("One of Living Room Lamp or hall lamp")
  const setter = {
    name: "set_device",
    description: "Changes a device",
    parameters: {
      type: "object",
      properties: {
        device_name: device("one of: lock, front door lock, or living room lamp."),
        new_status: { type: "string", enum: ["on", "off"] },
        note: { type: "string" },
        setting: { type: "object", properties: { brightness: { type: "integer" }, color: { type: "string" }, temperature: { type: "number" } } },
        extra: { type: "object" }
      },
      required: ["device_name", "new_status"]
    }
  }

  it.effect("values listed after 'one of' (with or without a colon, split at commas and 'or'), named whole and in any case; the longest first", () =>
    Effect.gen(function* () {
      expect(yield* reply([getter("get_lamp", lamps)], ["user", "Is the living room lamp on?"])).toEqual({ calls: [{ name: "get_lamp", args: { device_name: "Living Room Lamp" } }] })
      expect(yield* reply([getter("get_lamp", lamps)], ["user", "Is the hall lamp on?"])).toEqual({ calls: [{ name: "get_lamp", args: { device_name: "hall lamp" } }] })
      expect(yield* reply([setter], ["user", "Turn off the front door lock."])).toStrictEqual({
        calls: [{ name: "set_device", args: { device_name: "front door lock", new_status: "off" } }]
      })
      expect(yield* reply([getter("get_lamp", { type: "string", enum: [1, "garage"] })], ["user", "Is the garage open?"])).toEqual({
        calls: [{ name: "get_lamp", args: { device_name: "garage" } }]
      })
    }))

  it.effect("the required parameter that enumerates is the subject; a tool without required parameters takes the first", () =>
    Effect.gen(function* () {
      const zoned = {
        name: "get_device",
        description: "d",
        parameters: { type: "object", properties: { room: { type: "string", enum: ["kitchen", "hall"] }, device_name: lamps }, required: ["device_name"] }
      }
      expect(yield* reply([zoned], ["user", "Is the hall lamp in the kitchen on?"])).toEqual({ calls: [{ name: "get_device", args: { device_name: "hall lamp", room: "kitchen" } }] })
      const loose = { name: "switch_lamp", description: "d", parameters: { type: "object", properties: { device_name: lamps } } }
      expect(yield* reply([loose], ["user", "Is the hall lamp on?"])).toEqual({ calls: [{ name: "switch_lamp", args: { device_name: "hall lamp" } }] })
    }))

  it.effect("a change goes to a tool whose name starts with a change word, a question to one that reads; else to any tool for the thing", () =>
    Effect.gen(function* () {
      const preset = getter("preset_lamp", lamps)
      const forget = getter("forget_lamp", lamps)
      expect(yield* reply([preset, getter("set_lamp", lamps)], ["user", "Turn on the hall lamp, which is in the hall"])).toMatchObject({ calls: [{ name: "set_lamp" }] })
      expect(yield* reply([forget, getter("get_lamp", lamps)], ["user", "Is the hall lamp on?"])).toMatchObject({ calls: [{ name: "get_lamp" }] })
      expect(yield* reply([getter("lamp_status_log", lamps), getter("lamp_status", lamps)], ["user", "Is the hall lamp on?"])).toMatchObject({ calls: [{ name: "lamp_status" }] })
      expect(yield* reply([getter("set_lamp", lamps), getter("get_lamp", lamps)], ["user", "  Is the hall lamp set to on?"])).toMatchObject({ calls: [{ name: "get_lamp" }] })
      expect(yield* reply([getter("get_lamp", lamps)], ["user", "Turn on the hall lamp"])).toMatchObject({ calls: [{ name: "get_lamp" }] })
    }))

  it.effect("'it' is the thing the user named last, in an earlier message of theirs (not the model's)", () =>
    Effect.gen(function* () {
      const get = getter("get_lamp", lamps)
      expect(yield* reply([get], ["user", "Is the hall lamp on?"], ["model", "Yes."], ["user", "Is the living room lamp on?"], ["model", "No."], ["user", "Thanks"], ["model", "Welcome."], ["user", "Is it dim?"])).toEqual({
        calls: [{ name: "get_lamp", args: { device_name: "Living Room Lamp" } }]
      })
      expect(yield* reply([get], ["user", "Hello"], ["model", "The hall lamp is on."], ["user", "Is it dim?"])).toMatchObject({ text: expect.stringContaining("running offline") })
    }))

  it.effect("settings: words lower-cased, whole numbers for number properties (a unit stands for the property), none when none is said", () =>
    Effect.gen(function* () {
      expect(yield* reply([setter], ["user", "Turn on the living room lamp, set its brightness to 40 and its color to Deep Blue"])).toStrictEqual({
        calls: [{ name: "set_device", args: { device_name: "living room lamp", new_status: "on", setting: { brightness: 40, color: "deep blue" } } }]
      })
      expect(yield* reply([setter], ["user", "Turn on the living room lamp and set its brightness to high"])).toStrictEqual({
        calls: [{ name: "set_device", args: { device_name: "living room lamp", new_status: "on" } }]
      })
      const thermostat = {
        ...setter,
        parameters: { ...setter.parameters, properties: { ...setter.parameters.properties, setting: { type: "object", properties: { temperature_celsius: { type: "integer" } } } } }
      }
      expect(yield* reply([thermostat], ["user", "Set the lock on, at 21 Degrees"])).toStrictEqual({
        calls: [{ name: "set_device", args: { device_name: "lock", new_status: "on", setting: { temperature_celsius: 21 } } }]
      })
    }))
})

describe("The offline rule model's edge cases: what a message lacks, odd schemas, and the tool choice", () => {
  const string = { type: "string" }
  const tool = (name: string, properties: Record<string, unknown>, required?: ReadonlyArray<unknown>) => ({
    name,
    description: name,
    parameters: { type: "object", properties, ...(required === undefined ? {} : { required }) }
  })
  const reply = (message: string, declarations: ReadonlyArray<unknown>, toolChoice?: string) =>
    Policy.offline.reply({ transcript: [{ role: "user", parts: [{ _tag: "Text", text: message }] }], declarations, toolChoice } as unknown as Policy.Request)
  const argsOf = (message: string, declaration: unknown) =>
    Effect.map(reply(message, [declaration]), (step) => (step as { calls: ReadonlyArray<{ args: unknown }> }).calls[0]!.args)

  it.effect("a parameter the message has no value for: the message itself, or the default of its kind", () =>
    Effect.gen(function* () {
      expect(yield* argsOf("calculate my taxes", tool("calculator", { expression: string }, ["expression"]))).toStrictEqual({ expression: "calculate my taxes" })
      expect(yield* argsOf("use fetch_url please", tool("fetch_url", { url: string }, ["url"]))).toStrictEqual({ url: "use fetch_url please" })
      expect(yield* argsOf("search for cats", tool("search", { query: string }, ["query"]))).toStrictEqual({ query: "search for cats" })
      expect(yield* argsOf("run read_file in src", tool("read_file", { path: string }, ["path"]))).toStrictEqual({ path: "." })
      expect(yield* argsOf("Use LOOKUP_ORDER, it cost 3.25", tool("lookup_order", { amount: { type: "number" }, size: { type: "string", enum: [] }, ghost: undefined }, ["amount", "size", "ghost", 7]))).toStrictEqual({
        amount: 3.25,
        size: "Use LOOKUP_ORDER, it cost 3.25",
        ghost: "Use LOOKUP_ORDER, it cost 3.25"
      })
    }))

  it.effect("paths and folders: absolute, nested, dotted, and words that are not folders", () =>
    Effect.gen(function* () {
      const reader = tool("read_file", { path: string }, ["path"])
      const lister = tool("list_dir", { path: string }, ["path"])
      expect(yield* argsOf("read /etc/hosts.conf", reader)).toStrictEqual({ path: "/etc/hosts.conf" })
      expect(yield* argsOf("list the files in /var/log", lister)).toStrictEqual({ path: "/var/log" })
      expect(yield* argsOf("list the files in  src/lib/deep", lister)).toStrictEqual({ path: "src/lib/deep" })
      expect(yield* argsOf("list the files in src", lister)).toStrictEqual({ path: "src" })
      expect(yield* argsOf("list the files in docs...", lister)).toStrictEqual({ path: "docs" })
      expect(yield* argsOf("list the files in ...", lister)).toStrictEqual({ path: "." })
      expect(yield* argsOf("list the files in theme", lister)).toStrictEqual({ path: "theme" })
      expect(yield* argsOf("list the files in data", lister)).toStrictEqual({ path: "data" })
    }))

  it.effect("a thing's values: split at commas without spaces, trimmed, empty ones dropped, matched as written (dots too)", () =>
    Effect.gen(function* () {
      const getter = (description: unknown, extra: Record<string, unknown> = {}, required: ReadonlyArray<string> = ["device_name"]) =>
        tool("get_device", { ...extra, device_name: { type: "string", description } }, required)
      expect(yield* reply("Is the garage open?", [getter("One of:hall lamp,garage")])).toEqual({ calls: [{ name: "get_device", args: { device_name: "garage" } }] })
      expect(yield* reply("Is the garage open?", [getter("One of: hall lamp, garage .")])).toEqual({ calls: [{ name: "get_device", args: { device_name: "garage" } }] })
      expect(yield* reply("Is the kettle on?", [getter("One of: hall lamp, garage,")])).toMatchObject({ text: expect.stringContaining("running offline") })
      expect(yield* reply("Is the kettle on?", [getter(["one of: kettle"])])).toMatchObject({ text: expect.stringContaining("running offline") })
      expect(yield* reply("Is the kettle on?", [getter("The device's name")])).toMatchObject({ text: expect.stringContaining("running offline") })
      expect(yield* reply("Is v1.2 installed?", [tool("get_version", { version: { type: "string", enum: ["v1.2", "v2.0"] } }, ["version"])])).toEqual({
        calls: [{ name: "get_version", args: { version: "v1.2" } }]
      })
      expect(yield* reply("Is v102 installed?", [tool("get_version", { version: { type: "string", enum: ["v1.2"] } }, ["version"])])).toMatchObject({
        text: expect.stringContaining("running offline")
      })
      // The subject is the required parameter that lists values, not another required one, nor a listing one not required.
      expect(yield* reply("Is the garage open?", [getter("one of: garage", { query: string, flag: null }, ["query", "device_name"])])).toEqual({
        calls: [{ name: "get_device", args: { device_name: "garage", query: "Is the garage open?" } }]
      })
      expect(yield* reply("Is the garage open?", [getter("one of: garage", { flag: null }, ["flag", "device_name"])])).toEqual({
        calls: [{ name: "get_device", args: { device_name: "garage", flag: "Is the garage open?" } }]
      })
      expect(yield* reply("Is the garage open?", [getter("one of: garage", { room: { type: "string", enum: ["kitchen", "hall"] } })])).toEqual({
        calls: [{ name: "get_device", args: { device_name: "garage" } }]
      })
    }))

  it.effect("a required path of a tool for a thing is a path the message names, never a folder", () =>
    Effect.gen(function* () {
      const setter = tool("set_device", { device_name: { type: "string", enum: ["lamp"] }, path: string }, ["device_name", "path"])
      expect(yield* reply("Turn on the lamp in kitchen", [setter])).toEqual({ calls: [{ name: "set_device", args: { device_name: "lamp", path: "." } }] })
    }))

  it.effect("tool choice none: no call even for a thing named; an empty transcript; tool results each on a line", () =>
    Effect.gen(function* () {
      const getter = tool("get_device", { device_name: { type: "string", enum: ["lamp"] } }, ["device_name"])
      expect(yield* reply("Is the lamp on?", [getter], "none")).toMatchObject({ text: expect.stringContaining("running offline") })
      expect(yield* Policy.offline.reply({ transcript: [], declarations: [] } as unknown as Policy.Request)).toMatchObject({ text: expect.stringContaining("I was given no tools.") })
      const results = yield* Policy.offline.reply({
        transcript: [
          { role: "user", parts: [FunctionResponse.make({ id: "a", name: "lookup", response: { output: 1 }, isError: false }), FunctionResponse.make({ id: "b", name: "lookup", response: { output: 2 }, isError: false })] }
        ],
        declarations: []
      } as unknown as Policy.Request)
      expect(results).toEqual({ text: "lookup returned 1.\nlookup returned 2." })
    }))
})
