import { Io } from "@agentfx/cli"
import type { Scenario } from "@agentfx/tools"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Fiber from "effect/Fiber"
import * as path from "node:path"
import { commandsOf, consent } from "../src/internal/scenarioCommands.js"

// The programs a scenario file would start as MCP servers, and the consent asked before they start (issue 35 item 17).

const definition = (mcp: Scenario.Definition["mcp"]): Scenario.Definition => ({
  file: path.join("scenarios", "tools.md"),
  name: "tools",
  description: "d",
  trigger: [],
  functions: [],
  mcp,
  instructions: "Hi."
})

const two = definition([
  { name: "files", command: "npx", args: ["server-filesystem", "my docs", "", 'say "hi"', "a\\b", "it's"], line: 7 },
  { name: "docs", url: "http://127.0.0.1:9/mcp", line: 9 },
  { name: "notes", command: "notes-server --stdio" }
])

/** Asks on a fresh terminal, answering with `answer` once the question is shown: the outcome and what was shown. */
const asked = (scenario: Scenario.Definition, answer: (terminal: Io.Memory) => Effect.Effect<void>) =>
  Effect.gen(function* () {
    const terminal = yield* Io.memory()
    const fiber = yield* Effect.fork(Effect.either(Effect.provide(consent(scenario, { allowed: false, ask: true }), terminal.layer)))
    yield* terminal.waitForOutput((out) => out.includes("[y/N] "))
    yield* answer(terminal)
    const outcome = yield* Fiber.join(fiber)
    return { outcome: Either.isLeft(outcome) ? outcome.left.message : "started", stdout: yield* terminal.stdout, stderr: yield* terminal.stderr }
  })

const refusal = (why: string) =>
  `scenario "tools" would start 2 programs as MCP servers (files: npx server-filesystem "my docs" "" "say \\"hi\\"" "a\\\\b" "it's", at ${two.file}:7; notes: notes-server --stdio, at ${two.file}): ${why}; pass --allow-scenario-commands to let scenario files start programs (they run with your rights)`

describe("a scenario's commands", () => {
  it("each program in the file's order, its words quoted as a shell would need them, with its place and field; URLs start nothing", () => {
    expect(commandsOf(two)).toEqual([
      { server: "files", text: `npx server-filesystem "my docs" "" "say \\"hi\\"" "a\\\\b" "it's"`, at: `${two.file}:7`, field: "mcp[0]" },
      { server: "notes", text: "notes-server --stdio", at: two.file, field: "mcp[2]" }
    ])
  })

  it.effect("started without asking when allowed, or when the scenario names no program; refused, naming each, when nobody is asked", () =>
    Effect.gen(function* () {
      const terminal = yield* Io.memory()
      const run = (scenario: Scenario.Definition, options: { allowed: boolean; ask: boolean }) =>
        Effect.either(Effect.provide(consent(scenario, options), terminal.layer))
      expect(yield* run(two, { allowed: true, ask: true })).toEqual(Either.right(undefined))
      expect(yield* run(definition([{ name: "docs", url: "http://127.0.0.1:9/mcp" }]), { allowed: false, ask: false })).toEqual(Either.right(undefined))
      const refused = yield* run(two, { allowed: false, ask: false })
      expect(Either.isLeft(refused) && refused.left.message).toBe(refusal("nobody is asked here"))
      expect([yield* terminal.stdout, yield* terminal.stderr]).toEqual(["", ""])
    }))

  it.effect("several programs: each is shown, one question for them all; y or yes (any case, spaces around) starts them", () =>
    Effect.gen(function* () {
      for (const answer of ["y", " YES ", "Yes"]) {
        const { outcome, stdout, stderr } = yield* asked(two, (terminal) => terminal.feed(answer))
        expect(outcome).toBe("started")
        expect(stdout).toBe(`Start them? [y/N] ${answer}\n`)
        expect(stderr).toBe(
          `scenario "tools" (${two.file}) starts these programs as MCP servers, in ${path.resolve("scenarios")}:\n  files: npx server-filesystem "my docs" "" "say \\"hi\\"" "a\\\\b" "it's"\n  notes: notes-server --stdio\n`
        )
      }
    }))

  it.effect("any other answer, Ctrl-C or the end of input starts nothing, and the refusal says which it was", () =>
    Effect.gen(function* () {
      for (const answer of ["n", "ny", "yep", "yes please", ""]) {
        expect((yield* asked(two, (terminal) => terminal.feed(answer))).outcome).toBe(refusal("you did not answer yes"))
      }
      expect((yield* asked(two, (terminal) => terminal.interrupt)).outcome).toBe(refusal("you cancelled with Ctrl-C"))
      expect((yield* asked(two, (terminal) => terminal.end)).outcome).toBe(refusal("nobody could answer (the input ended)"))
    }))
})
