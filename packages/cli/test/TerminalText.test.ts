import { LiveRepl, Repl } from "@agentfx/cli"
import { Fault, Policy } from "@agentfx/emulator"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as path from "node:path"
import { escapeAll, escapeLines, escapeName } from "../src/internal/terminalText.js"
import { agentfx, emulator, startInteractive, tempDir, typeAt as typeAtPrompt, viaGemini, writeFiles } from "./support/cli.js"

const esc = String.fromCharCode(27)
const bel = String.fromCharCode(7)
const csi8 = String.fromCharCode(0x9b)
const rlo = "\u202e"
/** Any character a terminal acts on instead of showing (line breaks aside). */
const raw = new RegExp(`[${String.fromCharCode(0)}-${String.fromCharCode(9)}${String.fromCharCode(11)}-${String.fromCharCode(31)}${String.fromCharCode(0x7f)}-${csi8}${rlo}]`)

describe("terminal text", () => {
  it("escapeName shows every control character, ANSI escape and direction override as its JSON escape, line breaks too", () => {
    expect(escapeName(`a${esc}[2Jb${csi8}c${rlo}d\ne${bel}`)).toBe("a\\u001b[2Jb\\u009bc\\u202ed\\u000ae\\u0007")
    expect(escapeName("get_weather — °C, ünïcode, 東京")).toBe("get_weather — °C, ünïcode, 東京")
  })

  it("escapeLines keeps line breaks and tabs; escapeAll escapes every string of plain data and keeps its shape", () => {
    expect(escapeLines(`one${esc}[31m\ntwo\tthree`)).toBe("one\\u001b[31m\ntwo\tthree")
    expect(escapeAll({ id: `x${esc}`, list: [`y${bel}`, 3, null], nested: { ok: true } })).toEqual({ id: "x\\u001b", list: ["y\\u0007", 3, null], nested: { ok: true } })
  })

  it("escapeAll puts ids and names on one line (a line break in one is escaped), keys too; other text keeps its lines", () => {
    expect(
      escapeAll({
        id: "case\nPASS fake",
        description: "two\nlines",
        calls: [{ name: "f\r\n✓ g", args: { [`k${esc}`]: "v\nw" } }],
        mismatches: [{ functionName: "h\n", expectedNames: ["a\nb"] }]
      })
    ).toEqual({
      id: "case\\u000aPASS fake",
      description: "two\nlines",
      calls: [{ name: "f\\u000d\\u000a✓ g", args: { "k\\u001b": "v\nw" } }],
      mismatches: [{ functionName: "h\\u000a", expectedNames: ["a\\u000ab"] }]
    })
  })

  it.scopedLive("chat /load: what the file says (a version, call ids) is quoted escaped", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const server = yield* emulator()
      const { env, flags } = viaGemini(server)
      writeFiles(dir, { "odd.json": JSON.stringify({ version: `9${csi8}2J${rlo}`, transcript: [] }) })
      const chat = yield* startInteractive("chat", flags, env)
      yield* typeAtPrompt(Repl.prompt)(chat.terminal, 1, `/load ${path.join(dir, "odd.json")}`)
      yield* typeAtPrompt(Repl.prompt)(chat.terminal, 2, "/exit")
      const result = yield* Fiber.join(chat.fiber)
      expect(result.code).toBe(0)
      expect(result.stderr).toContain("the file is a session of another version (\"9\\u009b2J\\u202e\"")
      expect(result.stderr).not.toMatch(raw)
    })
  )

  it.scopedLive("live: a server's close reason in the reconnect's note is escaped (the lost message is sent again)", () =>
    Effect.gen(function* () {
      const server = yield* emulator({ policy: Policy.script([{ text: "Back." }]) })
      yield* server.inject(Fault.close(1011, `gone${esc}[2J${bel}`))
      const { env, flags } = viaGemini(server)
      const live = yield* startInteractive("live", flags, env)
      yield* typeAtPrompt(LiveRepl.prompt)(live.terminal, 1, "hello")
      yield* typeAtPrompt(LiveRepl.prompt)(live.terminal, 2, "/exit")
      const result = yield* Fiber.join(live.fiber)
      expect(result.stderr).toContain("(connection lost — the connection closed with code 1011 (gone\\u001b[2J\\u0007), code 1011; reconnecting")
      expect(result.stdout).toContain("Back.")
      expect(result.stdout + result.stderr).not.toMatch(raw)
    })
  )

  it.scopedLive("agentfx run: a call name and arguments from the model with escapes are printed escaped, never raw", () =>
    Effect.gen(function* () {
      const name = `evil${esc}]0;pwned${bel}${esc}[2J`
      const server = yield* emulator({ policy: Policy.script([{ calls: [{ name, args: { x: `${csi8}31m${rlo}` } }] }, { text: "done" }]) })
      const { env, flags } = viaGemini(server)
      const result = yield* agentfx(["run", ...flags, "hello"], { env })
      expect(result.code).toBe(0)
      expect(result.stdout).toContain("→ evil\\u001b]0;pwned\\u0007\\u001b[2J(")
      expect(result.stdout).toContain("\\u009b31m\\u202e")
      expect(result.stdout).toContain("done")
      expect(result.stdout).not.toMatch(raw)
      expect(result.stderr).not.toMatch(raw)
    })
  )

  it.scopedLive("agentfx eval: case ids and descriptions from files are escaped in progress and in the report; errors too", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      writeFiles(dir, {
        "scenarios/s.md": "---\nname: s\ndescription: d\navailable_functions: []\n---\nBe brief.\n",
        "cases/c.yaml": `id: "spoof\\e[2K"\ndescription: "looks \\e[32mgreen\\a"\nscenario: s\ninput: hi\nexpected_function_calls: []\nx-cassette:\n  - text: hi\n`
      })
      const result = yield* agentfx(["eval", path.join(dir, "cases"), "--scenarios", path.join(dir, "scenarios")])
      expect(result.code).toBe(0)
      expect(result.stdout).toContain("spoof\\u001b[2K")
      expect(result.stdout).toContain("looks \\u001b[32mgreen\\u0007")
      expect(result.stderr).toContain("spoof\\u001b[2K")
      expect(result.stdout + result.stderr).not.toMatch(raw)

      writeFiles(dir, { "cases/c.yaml": `id: a\nscenario: "missing\\e[2J"\ninput: hi\nexpected_function_calls: []\n` })
      const failed = yield* agentfx(["eval", path.join(dir, "cases"), "--scenarios", path.join(dir, "scenarios")])
      expect(failed.code).toBe(2)
      expect(failed.stderr).toContain("missing\\u001b[2J")
      expect(failed.stderr).not.toMatch(raw)
    })
  )
})
