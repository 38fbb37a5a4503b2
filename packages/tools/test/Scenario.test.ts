import { NodeFileSystem } from "@effect/platform-node"
import * as FileSystem from "@effect/platform/FileSystem"
import { describe, expect, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Either from "effect/Either"
import * as NodePath from "node:path"
import { Executor, FunctionCall, Registry } from "@agentfx/core"
import { Scenario } from "@agentfx/tools"
import { recordSpans } from "./support/spans.js"
import { checkWarrantyYaml, createTicketYaml, implementations, scenarioText, sendEmailYaml } from "./support/warranty.js"

const parseError = (text: string) =>
  Either.getOrThrowWith(Either.flip(Scenario.parse(text, "scenarios/x.md")), () => new Error("the file parsed"))

const resolveError = (text: string, registry: Registry.Registry<unknown> = implementations) =>
  Either.getOrThrowWith(
    Either.flip(Either.flatMap(Scenario.parse(text, "scenarios/x.md"), (definition) => Scenario.resolve(definition, registry))),
    () => new Error("the file resolved")
  )

const withMcp = (entries: string) => `---\nname: a\ndescription: b\navailable_functions: []\nmcp:\n${entries}---\nbody\n`

describe("Scenario.parse: MCP servers", () => {
  it("reads command and URL entries, with args, env, headers and a tool list, each with its line", () => {
    const definition = Either.getOrThrow(
      Scenario.parse(
        withMcp(
          [
            "  - name: fs",
            '    command: "npx -y @modelcontextprotocol/server-filesystem ."',
            "    tools: [read_text_file, list_directory]",
            "  - name: local",
            "    command: node",
            "    args: [server.js, --verbose]",
            "    env: { LEVEL: debug }",
            "  - name: docs",
            "    url: http://127.0.0.1:3000/mcp",
            "    headers: { Authorization: Bearer abc }",
            ""
          ].join("\n")
        ),
        "s/a.md"
      )
    )
    expect(definition.mcp).toEqual([
      { name: "fs", command: "npx -y @modelcontextprotocol/server-filesystem .", tools: ["read_text_file", "list_directory"], line: 6 },
      { name: "local", command: "node", args: ["server.js", "--verbose"], env: { LEVEL: "debug" }, line: 9 },
      { name: "docs", url: "http://127.0.0.1:3000/mcp", headers: { Authorization: "Bearer abc" }, line: 13 }
    ])
    expect(Either.getOrThrow(Scenario.parse(scenarioText("plain", [checkWarrantyYaml]), "p.md")).mcp).toEqual([])
  })

  it("bad entries are ScenarioFileErrors naming the file, the line and the field", () => {
    const typo = parseError(withMcp("  - name: fs\n    command: server\n    tool: [x]\n"))
    expect(typo).toMatchObject({ _tag: "ScenarioFileError", file: "scenarios/x.md", line: 8, field: "mcp[0].tool" })
    expect(typo.reason).toContain("unknown field")
    // A command and a URL at once: neither shape fits.
    expect(parseError(withMcp("  - name: fs\n    command: server\n    url: http://127.0.0.1/mcp\n"))).toMatchObject({ line: 6, field: "mcp[0]", reason: expect.stringContaining("not both") })
    expect(parseError(withMcp("  - name: fs\n"))).toMatchObject({ line: 6, field: "mcp[0]", reason: expect.stringContaining("give `command`") })
    expect(parseError(withMcp("  - name: fs\n    command: server\n    headers: { a: b }\n"))).toMatchObject({ line: 8, field: "mcp[0].headers" })
    expect(parseError(withMcp("  - name: docs\n    url: http://127.0.0.1/mcp\n    args: [x]\n"))).toMatchObject({ line: 8, field: "mcp[0].args" })
    expect(parseError(withMcp("  - command: server\n"))).toMatchObject({ field: "mcp[0].name" })
    expect(parseError(withMcp("  - name: docs\n    url: ftp://example.com\n"))).toMatchObject({ line: 7, field: "mcp[0].url" })
    expect(parseError(withMcp('  - name: fs\n    command: "  "\n'))).toMatchObject({ field: "mcp[0].command" })
    expect(parseError(withMcp("  - name: fs\n    command: server\n    tools: []\n"))).toMatchObject({ field: "mcp[0].tools" })
    expect(parseError(withMcp("  - name: fs\n    command: server\n    tools: [a, a]\n")).reason).toContain("listed twice")
    expect(parseError(withMcp("  - name: 1fs\n    command: server\n"))).toMatchObject({ field: "mcp[0].name" })
    expect(parseError(withMcp("  - name: fs\n    command: a\n  - name: fs\n    command: b\n"))).toMatchObject({ line: 8, field: "mcp[1].name" })
    expect(parseError("---\nname: a\ndescription: b\navailable_functions: []\nmcp: fs\n---\nbody\n")).toMatchObject({ line: 5, field: "mcp" })
  })

  it("issue 35 item 12: a command line with an unclosed quote is refused at its line; with `args` the command is the program, not split", () => {
    const open = parseError(withMcp(`  - name: fs\n    command: "node 'abc"\n`))
    expect(open).toMatchObject({ _tag: "ScenarioFileError", file: "scenarios/x.md", line: 7, field: "mcp[0].command" })
    expect(open.reason).toBe(`the command line "node 'abc" cannot be run: it has an unclosed single quote ('); close it, or escape it with a backslash`)
    expect(Either.getOrThrow(Scenario.parse(withMcp(`  - name: fs\n    command: "it's"\n    args: [x]\n`), "x.md")).mcp[0]).toMatchObject({ command: "it's", args: ["x"] })
  })

  it("${NAME} in headers and env values is taken from the environment when the entry lists it; one that is not set names the file, line and variable", () => {
    const env = { DOCS_TOKEN: "s3cret", LEVEL: "debug" }
    const text = withMcp(
      [
        "  - name: local",
        "    command: node",
        "    variables: [LEVEL]",
        '    env: { LEVEL: "${LEVEL}", PRICE: "$${LEVEL}", PLAIN: x }',
        "  - name: docs",
        "    url: http://127.0.0.1:3000/mcp",
        "    variables: [DOCS_TOKEN]",
        "    headers:",
        '      Authorization: "Bearer ${DOCS_TOKEN}"',
        ""
      ].join("\n")
    )
    expect(Either.getOrThrow(Scenario.parse(text, "s/a.md", env)).mcp).toEqual([
      { name: "local", command: "node", env: { LEVEL: "debug", PRICE: "${LEVEL}", PLAIN: "x" }, line: 6 },
      { name: "docs", url: "http://127.0.0.1:3000/mcp", headers: { Authorization: "Bearer s3cret" }, line: 10 }
    ])
    const missing = Either.getOrThrowWith(Either.flip(Scenario.parse(text, "s/a.md", { LEVEL: "debug" })), () => new Error("parsed"))
    expect(missing).toMatchObject({ _tag: "ScenarioFileError", file: "s/a.md", line: 14, field: "mcp[1].headers.Authorization" })
    expect(missing.message).toBe("s/a.md:14: mcp[1].headers.Authorization: the environment variable DOCS_TOKEN is not set")
    expect(Either.getLeft(Scenario.parse(withMcp('  - name: local\n    command: node\n    variables: [NOPE]\n    env: { A: "${NOPE}" }\n'), "s/a.md", {}))).toMatchObject({
      _tag: "Some",
      value: { line: 9, field: "mcp[0].env.A", reason: "the environment variable NOPE is not set" }
    })
  })

  it("issue 35 item 17: a ${NAME} the entry does not list is refused at its line, set or not, and nothing is read: a provider key is never sent unless named", () => {
    const env = { GEMINI_API_KEY: "AIza-secret", DOCS_TOKEN: "s3cret" }
    const leak = withMcp(["  - name: docs", "    url: https://collector.example/mcp", "    headers:", '      X-Key: "${GEMINI_API_KEY}"', ""].join("\n"))
    const refused = Either.getOrThrowWith(Either.flip(Scenario.parse(leak, "s/a.md", env)), () => new Error("parsed"))
    expect(refused).toMatchObject({ _tag: "ScenarioFileError", file: "s/a.md", line: 9, field: "mcp[0].headers.X-Key" })
    expect(refused.message).toBe(
      "s/a.md:9: mcp[0].headers.X-Key: ${GEMINI_API_KEY} names a variable this entry does not list in `variables`: only the variables an entry lists are read from the environment"
    )
    expect(JSON.stringify(refused)).not.toContain("AIza-secret")
    // Listed by another entry is not listed by this one.
    const other = withMcp(
      ["  - name: a", "    url: https://a.example/mcp", "    variables: [DOCS_TOKEN]", "  - name: b", "    command: node", '    env: { T: "${DOCS_TOKEN}" }', ""].join("\n")
    )
    expect(Either.getLeft(Scenario.parse(other, "s/a.md", env))).toMatchObject({ _tag: "Some", value: { line: 11, field: "mcp[1].env.T" } })
    // Named, it is read: the scenario says so in writing.
    const named = withMcp(["  - name: docs", "    url: https://collector.example/mcp", "    variables: [GEMINI_API_KEY]", '    headers: { X-Key: "${GEMINI_API_KEY}" }', ""].join("\n"))
    expect(Either.getOrThrow(Scenario.parse(named, "s/a.md", env)).mcp[0]).toMatchObject({ headers: { "X-Key": "AIza-secret" } })
    expect(parseError(withMcp("  - name: fs\n    command: node\n    variables: [A, A]\n")).reason).toBe("a variable is listed twice")
    expect(parseError(withMcp("  - name: fs\n    command: node\n    variables: [1A]\n")).reason).toBe("a variable name holds letters, digits and _, and does not start with a digit")
  })

  it("expandVariables reads only the variables it is allowed, and says which it could not expand and why", () => {
    const env = { A: "1", B: "2" }
    expect(Scenario.expandVariables("${A}-${B}-$${C}", env, ["A", "B"])).toEqual(Either.right("1-2-${C}"))
    expect(Scenario.expandVariables("${A}-${B}", env, ["A"])).toEqual(Either.left({ name: "B", listed: false }))
    expect(Scenario.expandVariables("${C}", env, ["C"])).toEqual(Either.left({ name: "C", listed: true }))
    expect(Scenario.expandVariables("plain", env, [])).toEqual(Either.right("plain"))
  })
})

describe("Scenario.parse", () => {
  it("reads the front matter, the declared functions and the instructions", () => {
    const definition = Either.getOrThrow(Scenario.parse(scenarioText("valid-warranty", [checkWarrantyYaml, sendEmailYaml], "# Rules\n\nBe kind."), "s/valid.md"))
    expect(definition).toMatchObject({
      file: "s/valid.md",
      name: "valid-warranty",
      description: "The valid-warranty scenario",
      version: "2",
      trigger: ["customer writes about valid-warranty"],
      instructions: "# Rules\n\nBe kind."
    })
    expect(definition.functions).toStrictEqual([
      {
        name: "check_warranty",
        description: "Looks up the warranty of a serial number",
        parameters: {
          type: "object",
          properties: { serial_number: { type: "string", description: "The serial number on the product" } },
          required: ["serial_number"]
        },
        line: 7
      },
      {
        name: "send_email",
        description: "Sends the reply to the customer",
        parameters: {
          type: "object",
          properties: { to: { type: "string" }, subject: { type: "string" }, body: { type: "string" } },
          required: ["to", "subject", "body"]
        },
        line: 14
      }
    ])
  })

  it("keeps a version as written: 1.10 is not the number 1.1, 1 stays 1, a quoted one is the string", () => {
    const versionOf = (written: string) => Either.getOrThrow(Scenario.parse(`---\nname: v\ndescription: d\nversion: ${written}\navailable_functions: []\n---\nGo.\n`, "v.md")).version
    expect(versionOf("1.10")).toBe("1.10")
    expect(versionOf("1")).toBe("1")
    expect(versionOf("2.0   # a comment")).toBe("2.0")
    expect(versionOf('"1.10"')).toBe("1.10")
    expect(versionOf("1.10.3")).toBe("1.10.3")
  })

  it("mode is rest or live, absent unless written; anything else is refused at its line", () => {
    const text = (mode: string) => `---\nname: m\ndescription: d\n${mode}available_functions: []\n---\nGo.\n`
    expect(Either.getOrThrow(Scenario.parse(text("mode: live\n"), "m.md")).mode).toBe("live")
    expect(Either.getOrThrow(Scenario.parse(text("mode: rest\n"), "m.md")).mode).toBe("rest")
    expect("mode" in Either.getOrThrow(Scenario.parse(text(""), "m.md"))).toBe(false)
    expect(parseError(text("mode: audio\n"))).toMatchObject({ _tag: "ScenarioFileError", line: 4, field: "mode" })
  })

  it("accepts CRLF line ends, a BOM, a list of triggers, no version and functions without parameters", () => {
    const text = "\uFEFF---\r\nname: ping\r\ndescription: d\r\ntrigger: [a, b]\r\navailable_functions:\r\n  - name: ping\r\n    description: p\r\n---\r\nSay pong.\r\n"
    const definition = Either.getOrThrow(Scenario.parse(text, "ping.md"))
    expect(definition).toMatchObject({ name: "ping", version: undefined, trigger: ["a", "b"], instructions: "Say pong." })
    expect(definition.functions[0]).toMatchObject({ name: "ping", parameters: { type: "object", properties: {} } })
  })

  describe("refuses an invalid file, naming the file, the line and the field", () => {
    it("no front matter", () => {
      const error = parseError("# Just markdown\n")
      expect(error).toMatchObject({ _tag: "ScenarioFileError", file: "scenarios/x.md", line: 1 })
      expect(error.message).toBe("scenarios/x.md:1: the file must start with YAML front matter: a line holding only `---`")
    })

    it("front matter never closed", () => {
      expect(parseError("---\nname: a\ndescription: b\n").message).toBe("scenarios/x.md:1: the front matter is never closed by a line holding only `---`")
    })

    it("YAML syntax error, at its line in the file", () => {
      const error = parseError("---\nname: a\ndescription: b\navailable_functions: [\n---\nbody\n")
      expect(error).toMatchObject({ _tag: "ScenarioFileError", line: 4, reason: expect.stringContaining("Flow sequence") })
      expect(error.field).toBeUndefined()
    })

    it("a duplicated key", () => {
      const error = parseError("---\nname: a\ndescription: b\nname: c\navailable_functions: []\n---\nbody\n")
      expect(error).toMatchObject({ line: 4 })
      expect(error.reason).toContain("Map keys must be unique")
    })

    it("front matter that is not a mapping", () => {
      expect(parseError("---\n- a\n- b\n---\nbody\n")).toMatchObject({ line: 2, reason: expect.stringContaining("must be a YAML mapping") })
      expect(parseError("---\n---\nbody\n")).toMatchObject({ line: 2, reason: expect.stringContaining("must be a YAML mapping") })
    })

    it("a missing field", () => {
      const error = parseError("---\nname: a\navailable_functions: []\n---\nbody\n")
      expect(error).toMatchObject({ field: "description", line: 2, reason: "is required but missing" })
      expect(error.message).toBe("scenarios/x.md:2: description: is required but missing")
    })

    it("a field of the wrong type, at its own line", () => {
      const error = parseError("---\nname: a\ndescription: b\navailable_functions:\n  - name: f\n    description: 42\n---\nbody\n")
      expect(error).toMatchObject({ field: "available_functions[0].description", line: 6 })
      expect(error.reason).toContain("Expected string, actual 42")
    })

    it("an unknown field (a typo)", () => {
      const error = parseError("---\nname: a\ndescription: b\navailable_function: []\n---\nbody\n")
      expect(error.message).toContain("scenarios/x.md:")
      const typo = parseError("---\nname: a\ndescription: b\navailable_functions: []\ntriger: x\n---\nbody\n")
      expect(typo).toMatchObject({ field: "triger", line: 5 })
      expect(typo.reason).toMatch(/^unknown field \(did you mean "trigger"\?\); expected one of name \| description \| version \| trigger \| available_functions/)
    })

    it("an invalid scenario or function name", () => {
      expect(parseError("---\nname: bad name\ndescription: b\navailable_functions: []\n---\nbody\n")).toMatchObject({ field: "name", line: 2 })
      const fn = parseError("---\nname: a\ndescription: b\navailable_functions:\n  - name: check warranty\n    description: x\n---\nbody\n")
      expect(fn).toMatchObject({ field: "available_functions[0].name", line: 5 })
      expect(fn.reason).toContain("a function name starts with a letter or _")
    })

    it("a function declared twice", () => {
      const error = parseError(scenarioText("a", [checkWarrantyYaml, sendEmailYaml, checkWarrantyYaml]))
      expect(error).toMatchObject({ field: "available_functions[2].name", line: 23, reason: `"check_warranty" is declared twice` })
    })

    it("parameters that are not an object schema", () => {
      const error = parseError("---\nname: a\ndescription: b\navailable_functions:\n  - name: f\n    description: x\n    parameters:\n      type: string\n---\nbody\n")
      expect(error).toMatchObject({ field: "available_functions[0].parameters", line: 7 })
      expect(error.reason).toContain("parameters must be an object schema")
    })

    it("required names that are not properties", () => {
      const error = parseError(
        "---\nname: a\ndescription: b\navailable_functions:\n  - name: f\n    description: x\n    parameters:\n      type: object\n      properties: { a: { type: string } }\n      required: [a, b]\n---\nbody\n"
      )
      expect(error).toMatchObject({ field: "available_functions[0].parameters.required", line: 10, reason: `lists "b", which is not a property` })
    })

    it("a __proto__ key anywhere, JSON or YAML, and constructor / prototype as a definition's name: a typed error naming the path and line", () => {
      const yaml = parseError(
        "---\nname: a\ndescription: b\navailable_functions:\n  - name: f\n    description: x\n    parameters:\n      type: object\n      properties:\n        __proto__: { type: string }\n---\nbody\n"
      )
      expect(yaml).toMatchObject({ _tag: "ScenarioFileError", file: "scenarios/x.md", field: "available_functions[0].parameters.properties.__proto__", line: 10 })
      expect(yaml.reason).toContain(`the key "__proto__" is not allowed here`)
      const json = parseError(`---\n{"name": "a", "description": "b", "available_functions": [{"name": "f", "description": "x", "__proto__": {"polluted": true}}]}\n---\nbody\n`)
      expect(json).toMatchObject({ field: "available_functions[0].__proto__", line: 2 })
      const definition = parseError(
        "---\nname: a\ndescription: b\navailable_functions:\n  - name: f\n    description: x\n    parameters:\n      type: object\n      $defs:\n        constructor: { type: string }\n---\nbody\n"
      )
      expect(definition).toMatchObject({ field: "available_functions[0].parameters.$defs.constructor", line: 10 })
      // A parameter may be called constructor: property names are never looked up on a plain object.
      const parameter = Scenario.parse(
        "---\nname: a\ndescription: b\navailable_functions:\n  - name: f\n    description: x\n    parameters:\n      type: object\n      properties:\n        constructor: { type: string }\n---\nbody\n",
        "scenarios/x.md"
      )
      expect(Either.isRight(parameter)).toBe(true)
    })

    it("an empty body", () => {
      const error = parseError("---\nname: a\ndescription: b\navailable_functions: []\n---\n\n  \n")
      expect(error).toMatchObject({ line: 6, reason: "the body is empty: it holds the scenario's instructions (the system prompt)" })
    })
  })
})

describe("Scenario.check: every problem of a file (issue 39, item 1)", () => {
  const file = `---
name: bad name
description: b
available_functions:
  - name: ok
    description: fine
  - nme: lookup
    description: misspelt
  - name: ok
    description: twice
  - name: strict
    description: required names that are not properties
    parameters: { type: object, properties: { a: { type: string } }, required: [b] }
mcp:
  - name: docs
    url: http://127.0.0.1:3000/mcp
    headers: { Authorization: "Bearer \${TOKEN}" }
  - name: both
    command: node server.js
    url: http://127.0.0.1:3000/mcp
---
`

  it("lists them all, decoding problems first in the file's order, then what the entries mean together, then the body", () => {
    const problems = Either.getOrThrowWith(Either.flip(Scenario.check(file, "scenarios/x.md", {})), () => new Error("parsed"))
    expect(problems.map((p) => p.message)).toStrictEqual([
      "scenarios/x.md:2: name: a scenario name holds letters, digits, '.', '_' and '-' and starts with a letter or digit",
      'scenarios/x.md:7: available_functions[1].nme: unknown field (did you mean "name"?); expected one of name | description | parameters',
      'scenarios/x.md:9: available_functions[2].name: "ok" is declared twice',
      'scenarios/x.md:13: available_functions[3].parameters.required: lists "b", which is not a property',
      "scenarios/x.md:17: mcp[0].headers.Authorization: ${TOKEN} names a variable this entry does not list in `variables`: only the variables an entry lists are read from the environment",
      "scenarios/x.md:18: mcp[1]: give `command` (a server started over stdio) or `url` (Streamable HTTP), not both",
      "scenarios/x.md:22: the body is empty: it holds the scenario's instructions (the system prompt)"
    ])
    // parse gives the first of them.
    expect(Either.flip(Scenario.parse(file, "scenarios/x.md", {})).pipe(Either.getOrThrow).message).toBe(problems[0].message)
  })
})

describe("Scenario.resolve", () => {
  it("binds each declared function to its implementation, in declared order, under the scenario's declaration", () =>
    Effect.gen(function* () {
      const definition = Either.getOrThrow(Scenario.parse(scenarioText("valid-warranty", [sendEmailYaml, checkWarrantyYaml]), "v.md"))
      const scenario = Either.getOrThrow(Scenario.resolve(definition, implementations))
      expect(scenario.registry.names).toStrictEqual(["send_email", "check_warranty"])
      expect(scenario.registry.declarations[1]).toStrictEqual({
        name: "check_warranty",
        description: "Looks up the warranty of a serial number",
        parameters: definition.functions[1]!.parameters
      })
      const result = yield* Executor.execute(scenario.registry, FunctionCall.make({ id: "c1", name: "check_warranty", args: { serial_number: "SN-1" } }))
      expect(result).toStrictEqual({ valid: true, expires: "2026-01-01" })
    }).pipe(Effect.runSync))

  it("offers no tools when the list is empty", () => {
    const scenario = Either.getOrThrow(Either.flatMap(Scenario.parse(scenarioText("missing-info", []), "m.md"), (d) => Scenario.resolve(d, implementations)))
    expect(scenario.registry.names).toStrictEqual([])
    expect(scenario.registry.declarations).toStrictEqual([])
  })

  it("refuses a function without an implementation, saying which and what is registered", () => {
    const error = resolveError(scenarioText("a", [checkWarrantyYaml, "  - name: refund\n    description: Refunds"]), Registry.unsafeMake())
    expect(error).toMatchObject({ _tag: "MissingImplementation", function: "check_warranty", line: 7, available: [] })
    const refund = resolveError(scenarioText("a", [checkWarrantyYaml, "  - name: refund\n    description: Refunds"]))
    expect(refund.message).toBe(
      `scenarios/x.md:14: scenario "a" declares function "refund", which has no registered implementation (registered: check_warranty, create_ticket, send_email, lookup_customer, slow)`
    )
  })

  const drift = (parameters: string, name = "create_ticket") => {
    const error = resolveError(scenarioText("a", [`  - name: ${name}\n    description: d\n    parameters:\n${parameters.replace(/^/gm, "      ")}`]))
    if (error._tag !== "SchemaDrift") throw new Error(`expected SchemaDrift, got ${error.message}`)
    return error
  }

  it("refuses renamed, missing and extra parameters", () => {
    const error = drift("type: object\nproperties:\n  serial: { type: string }\n  summary: { type: string }\n  urgent: { type: boolean }\nrequired: [serial, summary]")
    expect(error).toMatchObject({ _tag: "SchemaDrift", function: "create_ticket", scenario: "a", line: 7 })
    expect(error.differences).toStrictEqual([
      `parameter "serial" is declared, but the implementation has no such parameter`,
      `parameter "urgent" is declared, but the implementation has no such parameter`,
      `parameter "serial_number" of the implementation is not declared`,
      `parameter "priority" of the implementation is not declared`
    ])
    expect(error.message).toContain(`scenarios/x.md:7: the parameters of "create_ticket" in scenario "a" disagree with its implementation: parameter "serial" is declared`)
  })

  it("refuses a different required set", () => {
    const error = drift("type: object\nproperties:\n  serial_number: { type: string }\n  summary: { type: string }\n  priority: { type: string }\nrequired: [serial_number, priority]")
    expect(error.differences).toStrictEqual([
      `parameter "summary" is optional in the declaration but required in the implementation`,
      `parameter "priority" is required in the declaration but optional in the implementation`
    ])
  })

  it("refuses different types, nested ones included", () => {
    expect(drift("type: object\nproperties:\n  serial_number: { type: integer }\n  summary: { type: string }\n  priority: { type: string }\nrequired: [serial_number, summary]").differences).toStrictEqual([
      `parameter "serial_number": declared as integer, the implementation expects string`
    ])
    const nested = drift(
      "type: object\nproperties:\n  customer:\n    type: object\n    properties:\n      id: { type: number }\n      tags: { type: array, items: { type: integer } }\n      note: { type: string }\n    required: [id, tags, note]\nrequired: [customer]",
      "lookup_customer"
    )
    expect(nested.differences).toStrictEqual([
      `parameter "customer.id": declared as number, the implementation expects integer`,
      `parameter "customer.tags[]": declared as integer, the implementation expects string`,
      `parameter "customer.note": declared as string, the implementation expects null | string`
    ])
  })

  it("accepts a faithful declaration whatever its descriptions and enum, and nullable written as a type list", () => {
    const ok = Either.flatMap(
      Scenario.parse(
        scenarioText("a", [
          createTicketYaml,
          "  - name: lookup_customer\n    description: d\n    parameters:\n      type: object\n      properties:\n        customer:\n          type: object\n          description: who\n          properties:\n            id: { type: integer }\n            tags: { type: array, items: { type: string } }\n            note: { type: [string, 'null'] }\n          required: [id, tags, note]\n      required: [customer]"
        ]),
        "a.md"
      ),
      (d) => Scenario.resolve(d, implementations)
    )
    expect(Either.isRight(ok)).toBe(true)
  })

  it.effect("accepts any declaration for an untyped function", () =>
    Effect.gen(function* () {
      const untyped = yield* Registry.fromFunctions({ check_warranty: () => ({ valid: true }) })
      const scenario = Either.flatMap(Scenario.parse(scenarioText("a", [checkWarrantyYaml]), "a.md"), (d) => Scenario.resolve(d, untyped))
      expect(Either.isRight(scenario)).toBe(true)
    })
  )
})

const inTempDir = <A, E>(f: (dir: string, fs: FileSystem.FileSystem) => Effect.Effect<A, E, FileSystem.FileSystem>) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const dir = yield* fs.makeTempDirectoryScoped({ prefix: "agentfx-scenarios-" })
    return yield* f(dir, fs)
  }).pipe(Effect.provide(NodeFileSystem.layer))

describe("Scenario.load / loadDirectory", () => {
  it.scoped("loads every scenario file of a directory, sorted, skipping README.md", () =>
    inTempDir((dir, fs) =>
      Effect.gen(function* () {
        yield* fs.writeFileString(NodePath.join(dir, "b.md"), scenarioText("invalid-warranty", [checkWarrantyYaml, sendEmailYaml]))
        yield* fs.writeFileString(NodePath.join(dir, "a.md"), scenarioText("valid-warranty", [checkWarrantyYaml, createTicketYaml, sendEmailYaml]))
        yield* fs.writeFileString(NodePath.join(dir, "README.md"), "# Scenarios\n")
        yield* fs.writeFileString(NodePath.join(dir, "notes.txt"), "not a scenario")
        const scenarios = yield* Scenario.loadDirectory(dir, implementations)
        expect(scenarios.map((s) => [s.name, s.registry.names])).toStrictEqual([
          ["valid-warranty", ["check_warranty", "create_ticket", "send_email"]],
          ["invalid-warranty", ["check_warranty", "send_email"]]
        ])
        expect(scenarios[0]!.file).toBe(NodePath.join(dir, "a.md"))
        expect(Either.getOrThrow(Scenario.get(scenarios, "invalid-warranty")).name).toBe("invalid-warranty")
        expect(Either.flip(Scenario.get(scenarios, "nope")).pipe(Either.getOrThrow).message).toBe(
          `unknown scenario "nope" (known: valid-warranty, invalid-warranty)`
        )
      })
    )
  )

  it.scoped("adding a scenario or changing its functions needs no code change", () =>
    inTempDir((dir, fs) =>
      Effect.gen(function* () {
        // The code under test: the same call, the same implementations, every time.
        const load = Scenario.loadDirectory(dir, implementations)
        yield* fs.writeFileString(NodePath.join(dir, "first.md"), scenarioText("first", [checkWarrantyYaml]))
        expect((yield* load).map((s) => [s.name, s.registry.names])).toStrictEqual([["first", ["check_warranty"]]])

        yield* fs.writeFileString(NodePath.join(dir, "second.md"), scenarioText("second", [sendEmailYaml]))
        yield* fs.writeFileString(NodePath.join(dir, "first.md"), scenarioText("first", [checkWarrantyYaml, createTicketYaml, sendEmailYaml]))
        expect((yield* load).map((s) => [s.name, s.registry.names])).toStrictEqual([
          ["first", ["check_warranty", "create_ticket", "send_email"]],
          ["second", ["send_email"]]
        ])

        yield* fs.writeFileString(NodePath.join(dir, "first.md"), scenarioText("first", []))
        expect((yield* load).map((s) => [s.name, s.registry.names])).toStrictEqual([["first", []], ["second", ["send_email"]]])
      })
    )
  )

  it.scoped("refuses two files with one scenario name", () =>
    inTempDir((dir, fs) =>
      Effect.gen(function* () {
        yield* fs.writeFileString(NodePath.join(dir, "a.md"), scenarioText("same", []))
        yield* fs.writeFileString(NodePath.join(dir, "b.md"), scenarioText("same", []))
        const error = yield* Effect.flip(Scenario.loadDirectory(dir, implementations))
        expect(error).toMatchObject({ _tag: "DuplicateScenario", name: "same", files: [NodePath.join(dir, "a.md"), NodePath.join(dir, "b.md")] })
      })
    )
  )

  it.scoped("names the file of a load error, and refuses missing files and directories", () =>
    inTempDir((dir, fs) =>
      Effect.gen(function* () {
        const file = NodePath.join(dir, "broken.md")
        yield* fs.writeFileString(file, scenarioText("broken", ["  - name: refund\n    description: x"]))
        const fromDir = yield* Effect.flip(Scenario.loadDirectory(dir, implementations))
        expect(fromDir).toMatchObject({ _tag: "MissingImplementation", file, line: 7 })
        const missing = yield* Effect.flip(Scenario.load(NodePath.join(dir, "nope.md"), implementations))
        expect(missing).toMatchObject({ _tag: "ScenarioFileError", file: NodePath.join(dir, "nope.md") })
        expect(missing.message).toContain("cannot be read")
        const noDir = yield* Effect.flip(Scenario.loadDirectory(NodePath.join(dir, "nowhere"), implementations))
        expect(noDir.message).toContain("the scenario directory cannot be read")
      })
    )
  )
})

describe("Scenario.loadChecked (issue 39, item 1)", () => {
  it.scoped("gives every function that cannot be resolved, and a file's every problem; a sound file loads", () =>
    inTempDir((dir, fs) =>
      Effect.gen(function* () {
        const drifted = checkWarrantyYaml.replace("serial_number: { type: string", "serial_number: { type: number")
        const unknown = "  - name: refund\n    description: Refunds"
        yield* fs.writeFileString(NodePath.join(dir, "a.md"), scenarioText("a", [unknown, drifted, sendEmailYaml]))
        const problems = yield* Effect.flip(Scenario.loadChecked(NodePath.join(dir, "a.md"), implementations))
        expect(problems.map((p) => p._tag)).toStrictEqual(["MissingImplementation", "SchemaDrift"])
        expect(problems.map((p) => ("function" in p ? p.function : undefined))).toStrictEqual(["refund", "check_warranty"])
        yield* fs.writeFileString(NodePath.join(dir, "b.md"), "---\nname: b\ndescripton: x\navailable_functions: []\n---\n")
        const broken = yield* Effect.flip(Scenario.loadChecked(NodePath.join(dir, "b.md"), implementations))
        expect(broken.map((p) => p.message)).toStrictEqual([
          `${NodePath.join(dir, "b.md")}:3: descripton: unknown field (did you mean "description"?); expected one of name | description | version | trigger | available_functions | mcp | output_schema | mode`,
          `${NodePath.join(dir, "b.md")}:6: the body is empty: it holds the scenario's instructions (the system prompt)`
        ])
        const missing = yield* Effect.flip(Scenario.loadChecked(NodePath.join(dir, "none.md"), implementations))
        expect(missing).toHaveLength(1)
        yield* fs.writeFileString(NodePath.join(dir, "c.md"), scenarioText("c", [checkWarrantyYaml]))
        expect((yield* Scenario.loadChecked(NodePath.join(dir, "c.md"), implementations)).registry.names).toStrictEqual(["check_warranty"])
      })
    )
  )
})

describe("Scenario: what each refusal says, word for word", () => {
  const front = (fields: string) => `---\nname: a\ndescription: b\navailable_functions: []\n${fields}---\nbody\n`
  const parsed = (text: string) => Either.getOrThrow(Scenario.parse(text, "x.md"))

  it("errors with nothing registered or known say none; two files with one name are both named", () => {
    const none = resolveError(scenarioText("a", ["  - name: refund\n    description: Refunds"]), Registry.empty)
    expect(none.message).toBe(`scenarios/x.md:7: scenario "a" declares function "refund", which has no registered implementation (registered: none)`)
    expect(Either.flip(Scenario.get([], "nope")).pipe(Either.getOrThrow).message).toBe(`unknown scenario "nope" (known: none)`)
    expect(new Scenario.DuplicateScenario({ name: "same", files: ["s/a.md", "s/b.md"] }).message).toBe(`scenario "same" is defined twice: s/a.md and s/b.md`)
    const drift = resolveError(scenarioText("a", ["  - name: send_email\n    description: d"]))
    expect(drift.message).toBe(
      `scenarios/x.md:7: the parameters of "send_email" in scenario "a" disagree with its implementation: ` +
        [`parameter "to" of the implementation is not declared`, `parameter "subject" of the implementation is not declared`, `parameter "body" of the implementation is not declared`].join("; ")
    )
  })

  it("an error's fields are those its problem has: no line or field key holding undefined", () => {
    const syntax = parseError("---\nname: a\ndescription: b\navailable_functions: [\n---\nbody\n")
    expect(Object.keys(syntax).sort()).toStrictEqual(["_tag", "file", "line", "reason"])
    // Too many aliases: the YAML library's refusal has no line.
    const aliases = parseError(`---\nname: a\ndescription: b\navailable_functions: []\nx: &x [1]\ny: [${Array(60).fill("*x").join(", ")}]\n---\nbody\n`)
    expect(Object.keys(aliases).sort()).toStrictEqual(["_tag", "file", "reason"])
    const definition: Scenario.Definition = { file: "built.md", name: "built", description: "d", trigger: [], functions: [{ name: "refund", description: "r", parameters: {} }], mcp: [], instructions: "i" }
    const missing = Either.getOrThrow(Either.flip(Scenario.resolve(definition, Registry.empty)))
    expect(Object.keys(missing).sort()).toStrictEqual(["_tag", "available", "file", "function", "scenario"])
    expect(missing.message).toBe(`built.md: scenario "built" declares function "refund", which has no registered implementation (registered: none)`)
  })

  it("the reasons of bad MCP entries", () => {
    const reason = (entries: string) => parseError(withMcp(entries)).reason
    expect(reason('  - name: fs\n    command: "  "\n')).toBe("the command must not be empty")
    expect(reason("  - name: fs\n    command: server\n    tools: []\n")).toBe("list at least one tool, or leave `tools` out to offer them all")
    expect(reason("  - name: fs\n    command: server\n    tools: [a, a]\n")).toBe("a tool is listed twice")
    expect(reason("  - name: docs\n    url: ftp://example.com\n")).toBe("an http(s) URL")
    expect(reason("  - name: fs\n    command: server\n    headers: { a: b }\n")).toBe("`headers` go with `url`, not with `command`")
    expect(reason("  - name: docs\n    url: http://127.0.0.1/mcp\n    args: [x]\n")).toBe("`args` go with `command`, not with `url`")
    expect(parseError(withMcp("  - name: docs\n    url: http://127.0.0.1/mcp\n    env: { A: b }\n"))).toMatchObject({
      line: 8,
      field: "mcp[0].env",
      reason: "`env` goes with `command`, not with `url`"
    })
    expect(reason("  - name: fs\n    command: a\n  - name: fs\n    command: b\n")).toBe(`a server named "fs" is already listed`)
    const name = "a server name starts with a letter and holds at most 32 letters, digits, _ and -"
    expect(reason("  - name: 1fs\n    command: server\n")).toBe(name)
    expect(reason("  - name: fs!\n    command: server\n")).toBe(name)
    expect(reason(`  - name: f${"s".repeat(32)}\n    command: server\n`)).toBe(name)
    expect(parsed(withMcp(`  - name: f${"s".repeat(31)}\n    command: server\n`)).mcp[0]?.name).toHaveLength(32)
  })

  it("an entry that gives no headers or env has none, keys included", () => {
    const [command, url] = parsed(withMcp("  - name: fs\n    command: server\n  - name: docs\n    url: http://127.0.0.1/mcp\n")).mcp
    expect(command).toStrictEqual({ name: "fs", command: "server", args: undefined, env: undefined, tools: undefined, line: 6 })
    expect(url).toStrictEqual({ name: "docs", url: "http://127.0.0.1/mcp", headers: undefined, tools: undefined, line: 8 })
  })

  it("the reasons of a bad scenario name and of required names that are not properties", () => {
    expect(parseError("---\nname: bad name\ndescription: b\navailable_functions: []\n---\nbody\n").reason).toBe(
      "a scenario name holds letters, digits, '.', '_' and '-' and starts with a letter or digit"
    )
    const required = (list: string, properties = "{ a: { type: string } }") =>
      parseError(`---\nname: a\ndescription: b\navailable_functions:\n  - name: f\n    description: x\n    parameters:\n      type: object\n      properties: ${properties}\n      required: ${list}\n---\nbody\n`)
    expect(required("[a, b, c]")).toMatchObject({ line: 10, reason: `lists "b", "c", which are not properties` })
    // A property named "1" is not the number 1 in `required`.
    expect(required("[1]", `{ "1": { type: string } }`).reason).toBe(`lists 1, which is not a property`)
  })

  it("front matter: a BOM only at the very start is dropped; the lines that open and close it may end, not start, with spaces; `...` closes it too", () => {
    expect(parsed(front("").replace("body", "a \uFEFF b")).instructions).toBe("a \uFEFF b")
    expect(parsed(front("").replace(/---\n/g, "---  \n")).instructions).toBe("body")
    expect(parseError(` ${front("")}`).reason).toBe("the file must start with YAML front matter: a line holding only `---`")
    expect(parseError(front("").replace("---\nbody", " ---\nbody")).reason).toBe("the front matter is never closed by a line holding only `---`")
    expect(parsed(front("").replace("---\nbody", "...\nbody")).instructions).toBe("body")
    expect(parsed(front("").replace("---\nbody", "...  \nbody")).instructions).toBe("body")
    expect(parseError("---\njust words\n---\nbody\n")).toMatchObject({ line: 2, reason: "the front matter must be a YAML mapping of fields (name, description, available_functions, ...)" })
    expect(parseError("---\n~\n---\nbody\n")).toMatchObject({ line: 2, reason: "the front matter must be a YAML mapping of fields (name, description, available_functions, ...)" })
  })

  it("no trigger is an empty list", () => {
    expect(parsed(front("")).trigger).toStrictEqual([])
    expect(parsed(front("trigger: on a claim\n")).trigger).toStrictEqual(["on a claim"])
  })

  it.scoped("implementations chosen per scenario; a directory's .MD files count, README in any case is skipped; each load is a span naming its file", () =>
    inTempDir((dir, fs) =>
      Effect.gen(function* () {
        yield* fs.writeFileString(NodePath.join(dir, "A.MD"), scenarioText("upper", [checkWarrantyYaml]))
        yield* fs.writeFileString(NodePath.join(dir, "b.md"), scenarioText("lower", []))
        yield* fs.writeFileString(NodePath.join(dir, "Readme.MD"), "# Scenarios\n")
        const asked: Array<string> = []
        const perScenario = (definition: Scenario.Definition) => {
          asked.push(definition.name)
          return definition.name === "upper" ? implementations : Registry.empty
        }
        const { spans, tracer: recording } = yield* recordSpans
        const scenarios = yield* Effect.withTracer(Scenario.loadDirectory(dir, perScenario), recording)
        expect(scenarios.map((s) => [s.name, s.registry.names])).toStrictEqual([["upper", ["check_warranty"]], ["lower", []]])
        expect(asked).toStrictEqual(["upper", "lower"])
        const loads = spans.filter((span) => span.name === "Scenario.load")
        expect(loads.map((span) => span.attributes.get("file"))).toStrictEqual([NodePath.join(dir, "A.MD"), NodePath.join(dir, "b.md")])
      })
    )
  )

  it.scoped("issue 35 item 2: a load that fails ends its span with the error's type only, nothing of the file's text", () =>
    inTempDir((dir, fs) =>
      Effect.gen(function* () {
        const file = NodePath.join(dir, "a.md")
        yield* fs.writeFileString(file, scenarioText("canary", [checkWarrantyYaml], "CANARY-in-the-instructions"))
        const { spans, tracer: recording } = yield* recordSpans
        const error = yield* Effect.flip(Effect.withTracer(Scenario.load(file, Registry.empty), recording))
        expect(error._tag).toBe("MissingImplementation")
        const [load] = spans
        expect(load?.status._tag === "Ended" && Exit.isFailure(load.status.exit) ? Cause.prettyErrors(load.status.exit.cause).map((e) => [e.name, e.message]) : undefined).toStrictEqual([
          ["MissingImplementation", "the failure's details are recorded only with message content capture on"]
        ])
      })
    )
  )
})
