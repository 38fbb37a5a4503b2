/**
 * `agentfx chat --durable`, exactly and in-process: each message a run of the session numbered after the session's
 * last (other runs of the store, and runs of a session whose name a pattern would match, are not the session's),
 * approvals answered y/yes (any case, spaces around) or denied, the model's failure said and the chat going on, and
 * a stopped chat's last message that waits answered first by the next chat.
 */
import { Io } from "@agentfx/cli"
import { Turn } from "@agentfx/core"
import { DurableAgent } from "@agentfx/durable"
import { Fault } from "@agentfx/emulator"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { agentfx, emulator, tempDir, viaGemini, writeFiles } from "./support/cli.js"
import { mathScenario } from "./support/scenarios.js"

const quiet = ["--log-level", "error"]
const hosts = ["--allow-host", "127.0.0.1"]

/** `agentfx chat --durable` on a terminal that types `lines`, then ends. */
const chat = (args: ReadonlyArray<string>, lines: ReadonlyArray<string>, env?: Record<string, string>) =>
  Effect.gen(function* () {
    const terminal = yield* Io.memory()
    yield* terminal.feed(...lines)
    yield* terminal.end
    return yield* agentfx([...quiet, "chat", "--durable", ...args], { terminal, ...(env === undefined ? {} : { env }) })
  })

/** The runs of a store: id and state, in the order `runs list` gives them. */
const runsOf = (store: string) =>
  Effect.map(agentfx([...quiet, "runs", "list", "--json", "--store", store]), (outcome) =>
    (JSON.parse(outcome.stdout) as ReadonlyArray<{ runId: string; state: string }>).map((run) => `${run.runId} ${run.state}`)
  )

/** What the user said in a finished run's transcript. */
const userTexts = (store: string, runId: string) =>
  Effect.map(DurableAgent.status(runId).pipe(Effect.provide(DurableAgent.layerSqliteReader({ filename: store }))), (status) =>
    status._tag === "Finished" ? status.result.transcript.filter((turn) => turn.role === "user").map(Turn.text).filter((text) => text !== "") : [status._tag]
  )

const refused = (url: string) => `fetch_url failed: "fetch_url" failed: fetching "${url}" failed: connect ECONNREFUSED 127.0.0.1:9.`
const denied = (reason: string) => `fetch_url failed: "fetch_url" was not approved: ${reason}.`
const asked = (url: string) => `approve fetch_url({"url":"${url}"})? [y/N] `

describe("agentfx chat --durable", () => {
  it.scopedLive("each message a run of the session, numbered; y or yes approves, anything else denies; /exit ends the chat", () =>
    Effect.gen(function* () {
      const store = path.join(yield* tempDir, "runs.db")
      // Runs that are not the session's: another run, and one of a session "axb" that "a.b" read as a pattern matches.
      yield* agentfx([...quiet, "run", "--durable", "--run-id", "axb/7", "--store", store, "what is 2 + 3?"])
      yield* agentfx([...quiet, "run", "--durable", "--run-id", "sum", "--store", store, "what is 2 + 3?"])
      const url = (n: number) => `http://127.0.0.1:9/${"abcde"[n - 1]}`
      const answers = [" YES ", "y", "ay", "yak", "no"]
      const typed = answers.flatMap((answer, i) => [`fetch ${url(i + 1)}`, answer])
      const one = yield* chat(["--session", "a.b", "--store", store, ...hosts], [...typed, "what is 2 + 3?", "/exit", "what is 3 + 3?"])
      expect([one.code, one.stdout.split("\n")]).toEqual([
        0,
        [
          `session a.b: new, each message a durable run in ${store}`,
          ...answers.flatMap((answer, i) => [
            `you> fetch ${url(i + 1)}`,
            `${asked(url(i + 1))}${answer}`,
            i < 2 ? refused(url(i + 1)) : denied("the user said no")
          ]),
          "you> what is 2 + 3?",
          "2 + 3 = 5.",
          "you> /exit",
          ""
        ]
      ])
      expect(yield* runsOf(store)).toEqual(["axb/7 Finished", "sum Finished", ...[1, 2, 3, 4, 5, 6].map((n) => `a.b/${n} Finished`)])
      // The next chat finds the session's six messages, and none of the other runs.
      const two = yield* chat(["--session", "a.b", "--store", store], [])
      expect([two.code, two.stdout]).toEqual([0, `session a.b: resumed from ${store} (6 messages)\nyou> \n`])
    })
  )

  it.scopedLive("the next chat numbers after the session's last message and continues its transcript; a finished last message is not answered again", () =>
    Effect.gen(function* () {
      const store = path.join(yield* tempDir, "runs.db")
      // Message 2 recorded before message 1: the session's order is the messages' numbers.
      yield* agentfx([...quiet, "run", "--durable", "--run-id", "s/2", "--store", store, "what is 10 * 2?"])
      yield* agentfx([...quiet, "run", "--durable", "--run-id", "s/1", "--store", store, "what is 2 + 3?"])
      const next = yield* chat(["--session", "s", "--store", store], ["what is 3 + 3?"])
      expect([next.code, next.stdout]).toEqual([0, `session s: resumed from ${store} (2 messages)\nyou> what is 3 + 3?\n3 + 3 = 6.\nyou> \n`])
      expect(yield* runsOf(store)).toEqual(["s/2 Finished", "s/1 Finished", "s/3 Finished"])
      expect(yield* userTexts(store, "s/3")).toEqual(["what is 10 * 2?", "what is 3 + 3?"])
    })
  )

  it.scopedLive("a message the model fails: the error in the chat, and the next message is answered", () =>
    Effect.gen(function* () {
      const store = path.join(yield* tempDir, "runs.db")
      const server = yield* emulator()
      yield* server.inject(Fault.status(400, { message: "refused for the test" }), { times: 1 })
      const { env, flags } = viaGemini(server)
      const failed = yield* chat(["--session", "s", "--store", store, ...flags], ["hi", "what is 2 + 3?"], env)
      expect([failed.code, failed.stdout]).toEqual([
        0,
        `session s: new, each message a durable run in ${store}\nyou> hi\nerror: InvalidRequest: INVALID_ARGUMENT: refused for the test\nyou> what is 2 + 3?\n2 + 3 = 5.\nyou> \n`
      ])
      expect(yield* runsOf(store)).toEqual(["s/1 Failed", "s/2 Finished"])
    })
  )

  it.scopedLive("a stopped chat's message that waits is answered first; the end of input at its question denies the call", () =>
    Effect.gen(function* () {
      const store = path.join(yield* tempDir, "runs.db")
      yield* agentfx([...quiet, "run", "--durable", "--run-id", "web/1", "--store", store, ...hosts, "fetch http://127.0.0.1:9/x"])
      const resumed = yield* chat(["--session", "web", "--store", store, ...hosts], [])
      expect([resumed.code, resumed.stdout]).toEqual([
        0,
        `session web: resumed from ${store} (1 message)\n(resuming message 1, which a stopped chat left unanswered)\n${asked("http://127.0.0.1:9/x")}\n${denied("the user said no")}\nyou> \n`
      ])
    })
  )

  it.scoped("takes the built-in tools only: with --mcp, --mcp-url or a scenario (a file that exists) it is a usage error, exit 2, before any store is opened", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      writeFiles(dir, { "math.md": mathScenario })
      const store = path.join(dir, "runs.db")
      for (const tools of [["--mcp", "node server.js"], ["--mcp-url", "http://127.0.0.1:9/mcp"], ["--scenario", path.join(dir, "math.md")]]) {
        expect(yield* chat(["--store", store, ...tools], ["hi"])).toStrictEqual({
          code: 2,
          stdout: "",
          stderr: "agentfx: --durable chats take the built-in tools only: not with --mcp, --mcp-url or --scenario\n"
        })
      }
      expect(fs.existsSync(store)).toBe(false)
    }))
})
