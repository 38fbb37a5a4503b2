/**
 * Every file the CLI reads is looked at before it is opened: a FIFO would block the open forever and /dev/zero never
 * end, so both are refused, by name, wherever a file is read — `--scenario`, an eval case or scenario file (with its
 * cassettes), a session (`--session`, `/load`) and a session's lock. Issue 35, item 6, as a class.
 */
import { Repl } from "@agentfx/cli"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { agentfx, startInteractive, tempDir, typeAt as typeAtPrompt, writeFiles } from "./support/cli.js"

const typeAt = typeAtPrompt(Repl.prompt)

/** A FIFO and a link to /dev/zero at `at(kind)`. */
const traps = (at: (kind: "fifo" | "zero") => string): void => {
  expect(spawnSync("mkfifo", [at("fifo")]).status).toBe(0)
  fs.symlinkSync("/dev/zero", at("zero"))
}

const said = { fifo: "a named pipe", zero: "a device" } as const

const scenario = "---\nname: s\ndescription: d\navailable_functions: []\n---\nBe brief.\n"
const evalCase = "- id: a\n  scenario: s\n  input: hi\n  expected_function_calls: []\n"

describe("every file the CLI reads refuses a FIFO and /dev/zero before reading it (issue 35, item 6)", () => {
  it.scopedLive("--scenario on run and chat", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      traps((kind) => path.join(dir, `${kind}.md`))
      for (const command of [["run", "hi"], ["chat"]]) {
        for (const kind of ["fifo", "zero"] as const) {
          const result = yield* agentfx([...command, "--scenario", path.join(dir, `${kind}.md`)])
          expect(result).toEqual({ code: 2, stdout: "", stderr: `agentfx: --scenario ${path.join(dir, `${kind}.md`)}: it is ${said[kind]}, not a file\n` })
        }
      }
    }))

  it.scopedLive("an eval case file (and so its cassettes) and a scenario file", () =>
    Effect.gen(function* () {
      for (const kind of ["fifo", "zero"] as const) {
        const dir = yield* tempDir
        writeFiles(dir, { "cases/a.yaml": evalCase, "scenarios/s.md": scenario })
        traps((trap) => (trap === kind ? path.join(dir, "cases", `b.yaml`) : path.join(dir, "scenarios", `other-${trap}.md`)))
        const result = yield* agentfx(["eval", path.join(dir, "cases"), "--scenarios", path.join(dir, "scenarios")])
        expect(result.code).toBe(2)
        expect(result.stdout).toBe("")
        expect(result.stderr).toContain(`${path.join(dir, "cases", "b.yaml")}: is ${said[kind]}, not a regular file (refused before reading)`)
        const other = kind === "fifo" ? "zero" : "fifo"
        expect(result.stderr).toContain(`${path.join(dir, "scenarios", `other-${other}.md`)}: is ${said[other]}, not a regular file (refused before reading)`)
      }
    }))

  it.scopedLive("--session, its lock, and /load in the chat", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const env = { AGENTFX_SESSIONS_DIR: dir }
      traps((kind) => path.join(dir, `${kind}.json`))
      for (const kind of ["fifo", "zero"] as const) {
        const file = path.join(dir, `${kind}.json`)
        const session = yield* agentfx(["chat", "--session", kind], { env })
        expect(session.code).toBe(2)
        expect(session.stderr).toBe(`agentfx: ${file} cannot be read: it is ${said[kind]}, not a regular file\n`)
      }
      const locks = path.join(dir, "locks")
      fs.mkdirSync(locks)
      traps((kind) => path.join(locks, `${kind}.json.lock`))
      for (const kind of ["fifo", "zero"] as const) {
        const lock = yield* agentfx(["chat", "--session", kind], { env: { AGENTFX_SESSIONS_DIR: locks } })
        expect(lock.code).toBe(2)
        expect(lock.stderr).toContain(`agentfx: ${path.join(locks, `${kind}.json.lock`)} cannot be read: it is ${said[kind]}, not a regular file`)
      }
      const chat = yield* startInteractive("chat", [], {})
      yield* typeAt(chat.terminal, 1, `/load ${path.join(dir, "fifo.json")}`)
      yield* typeAt(chat.terminal, 2, `/load ${path.join(dir, "zero.json")}`)
      yield* typeAt(chat.terminal, 3, "/exit")
      const result = yield* Fiber.join(chat.fiber)
      expect(result.code).toBe(0)
      expect(result.stderr).toContain(`${path.join(dir, "fifo.json")} cannot be read: it is a named pipe, not a regular file`)
      expect(result.stderr).toContain(`${path.join(dir, "zero.json")} cannot be read: it is a device, not a regular file`)
    }))
})
