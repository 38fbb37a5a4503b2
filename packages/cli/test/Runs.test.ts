/**
 * Durable runs from the command line: `run --durable` records the run in the store, `runs list` and `runs show`
 * read it, a call that needs approval parks it (exit 0, how to decide it on stderr), `runs approve` decides it and
 * runs the rest, and bad arguments or stores are one line with exit 2.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { Io } from "@agentfx/cli"
import { Turn } from "@agentfx/core"
import { DurableAgent } from "@agentfx/durable"
import { agentfx, tempDir } from "./support/cli.js"

describe("agentfx run --durable and agentfx runs", () => {
  it.scopedLive("a durable run is answered as run answers it, and is listed and shown from the store", () =>
    Effect.gen(function* () {
      const store = path.join(yield* tempDir, "runs.db")
      const ran = yield* agentfx(["--log-level", "error", "run", "--durable", "--run-id", "sum-1", "--store", store, "what is 2 + 3?"])
      expect(ran.code).toBe(0)
      expect(ran.stdout).toContain('→ calculator({"expression":"2 + 3"})')
      expect(ran.stdout).toContain("5")
      expect(ran.stderr).toContain(`run sum-1 in ${store}`)
      const listed = yield* agentfx(["--log-level", "error", "runs", "list", "--store", store])
      expect(listed.code).toBe(0)
      expect(listed.stdout).toMatch(/^sum-1\tFinished\tagentfx\t/)
      const shown = yield* agentfx(["--log-level", "error", "runs", "show", "sum-1", "--store", store, "--json"])
      expect(shown.code).toBe(0)
      const json = JSON.parse(shown.stdout) as { state: string; calls: Array<{ name: string }>; events: Array<{ event: { _tag: string } }> }
      expect(json.state).toBe("Finished")
      expect(json.calls.map((call) => call.name)).toEqual(["calculator"])
      expect(json.events.map((entry) => entry.event._tag)).toEqual(["TurnFinished", "CallStarted", "CallFinished", "TurnFinished", "Done"])
      // The same id again attaches to the finished run: the same answer, nothing run again.
      const again = yield* agentfx(["--log-level", "error", "run", "--durable", "--run-id", "sum-1", "--store", store, "what is 2 + 3?"])
      expect(again.stdout).toBe(ran.stdout)
    })
  )

  it.scopedLive("a call that needs approval parks the run; runs approve --deny decides it and the run ends", () =>
    Effect.gen(function* () {
      const store = path.join(yield* tempDir, "runs.db")
      const parked = yield* agentfx(["--log-level", "error", "run", "--durable", "--run-id", "web-1", "--store", store, "--allow-host", "127.0.0.1", "fetch http://127.0.0.1:9/x"])
      expect([parked.code, parked.stderr]).toEqual([0, expect.stringContaining("waits for approval") as unknown as string])
      const asked = /run web-1 waits for approval of fetch_url\(.*\): agentfx runs approve web-1 (\S+) \(or --deny REASON\)/.exec(parked.stderr)
      expect(asked).not.toBeNull()
      const waiting = yield* agentfx(["--log-level", "error", "runs", "show", "web-1", "--store", store])
      expect(waiting.stdout).toContain(`waits for approval: ${asked![1]} fetch_url(`)
      // resume, from another process: the run still waits, and says so again.
      const resumed = yield* agentfx(["--log-level", "error", "runs", "resume", "web-1", "--store", store, "--allow-host", "127.0.0.1"])
      expect(resumed.code).toBe(0)
      expect(resumed.stderr).toContain(`run web-1 waits for approval of fetch_url(`)
      const denied = yield* agentfx(["--log-level", "error", "runs", "approve", "web-1", asked![1]!, "--deny", "not today", "--store", store, "--allow-host", "127.0.0.1"])
      expect(denied.code).toBe(0)
      expect(denied.stdout).toContain("← fetch_url failed:")
      expect(denied.stdout).toContain("not today")
      const again = yield* agentfx(["--log-level", "error", "runs", "approve", "web-1", asked![1]!, "--store", store])
      expect(again.code).toBe(2)
      expect(again.stderr.split("\n").at(-2)).toBe(`agentfx: run "web-1" has no call "${asked![1]}" waiting for approval`)
    })
  )

  it.scopedLive("bad arguments and stores: one line, exit 2, nothing run", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const store = path.join(dir, "runs.db")
      const unknown = yield* agentfx(["--log-level", "error", "runs", "show", "nope", "--store", store])
      expect([unknown.code, unknown.stderr]).toEqual([2, 'agentfx: no run "nope" in the store\n'])
      const verb = yield* agentfx(["--log-level", "error", "runs", "frobnicate"])
      expect([verb.code, verb.stderr]).toEqual([2, "agentfx: agentfx runs frobnicate: the action is one of list, show, resume, approve, cancel\n"])
      const missing = yield* agentfx(["--log-level", "error", "runs", "approve", "r1", "--store", store])
      expect([missing.code, missing.stderr]).toEqual([2, "agentfx: agentfx runs approve ID CALL: missing arguments\n"])
      const surplus = yield* agentfx(["--log-level", "error", "runs", "show", "r1", "r2", "--store", store])
      expect([surplus.code, surplus.stderr]).toEqual([2, "agentfx: agentfx runs show ID: too many arguments\n"])
      const listed = yield* agentfx(["--log-level", "error", "runs", "list", "r1", "--store", store])
      expect([listed.code, listed.stderr]).toEqual([2, "agentfx: agentfx runs list: too many arguments\n"])
      const folder = path.join(dir, "a-folder")
      fs.mkdirSync(folder)
      const directory = yield* agentfx(["--log-level", "error", "run", "--durable", "--store", folder, "hi"])
      expect(directory.code).toBe(2)
      expect(directory.stderr.split("\n").at(-2)).toBe(`agentfx: the run store ${folder} cannot be used: it is a directory`)
      const schemaFile = path.join(dir, "answer.json")
      fs.writeFileSync(schemaFile, JSON.stringify({ type: "object", properties: { sum: { type: "number" } }, required: ["sum"] }))
      const typed = yield* agentfx(["--log-level", "error", "run", "--durable", "--store", store, "--output-schema", schemaFile, "hi"])
      expect([typed.code, typed.stderr]).toEqual([2, "agentfx: --durable runs give a text answer: not with --output-schema\n"])
      const withMcp = yield* agentfx(["--log-level", "error", "run", "--durable", "--store", store, "--mcp", "node server.js", "hi"])
      expect([withMcp.code, withMcp.stderr]).toEqual([2, "agentfx: --durable runs take the built-in tools only: not with --mcp, --mcp-url or --scenario\n"])
      const cancelled = yield* agentfx(["--log-level", "error", "runs", "cancel", "nope", "--store", store])
      expect([cancelled.code, cancelled.stderr]).toEqual([2, 'agentfx: no run "nope" in the store\n'])
    })
  )
})

describe("agentfx chat --durable", () => {
  it.scopedLive("each message is a durable run of the session; the next chat goes on from the store", () =>
    Effect.gen(function* () {
      const store = path.join(yield* tempDir, "runs.db")
      const first = yield* Io.memory()
      yield* first.feed("what is 2 + 3?")
      yield* first.end
      const one = yield* agentfx(["--log-level", "error", "chat", "--durable", "--session", "notes", "--store", store], { terminal: first })
      expect(one.code).toBe(0)
      expect(one.stdout).toContain(`session notes: new, each message a durable run in ${store}`)
      expect(one.stdout).toContain("5")
      const second = yield* Io.memory()
      yield* second.feed("what is 10 * 2?")
      yield* second.end
      const two = yield* agentfx(["--log-level", "error", "chat", "--durable", "--session", "notes", "--store", store], { terminal: second })
      expect(two.stdout).toContain(`session notes: resumed from ${store} (1 message)`)
      expect(two.stdout).toContain("20")
      const listed = yield* agentfx(["--log-level", "error", "runs", "list", "--store", store])
      expect(listed.stdout.split("\n").filter((line) => line !== "").map((line) => line.split("\t").slice(0, 2))).toEqual([
        ["notes/1", "Finished"],
        ["notes/2", "Finished"]
      ])
      // The second message's run continued the first's transcript.
      const status = yield* DurableAgent.status("notes/2").pipe(Effect.provide(DurableAgent.layerSqliteReader({ filename: store })))
      const said = status._tag === "Finished" ? status.result.transcript.filter((turn) => turn.role === "user").map(Turn.text).filter((text) => text !== "") : []
      expect(said).toEqual(["what is 2 + 3?", "what is 10 * 2?"])
    })
  )

  it.scopedLive("a message a stopped chat left unanswered is resumed first, its approval asked in the chat", () =>
    Effect.gen(function* () {
      const store = path.join(yield* tempDir, "runs.db")
      // As a chat killed while its message waited: the run is parked in the store, nobody answered it.
      const parked = yield* agentfx(["--log-level", "error", "run", "--durable", "--run-id", "web/1", "--store", store, "--allow-host", "127.0.0.1", "fetch http://127.0.0.1:9/x"])
      expect(parked.stderr).toContain("waits for approval")
      const terminal = yield* Io.memory()
      yield* terminal.feed("n")
      yield* terminal.end
      const chat = yield* agentfx(["--log-level", "error", "chat", "--durable", "--session", "web", "--store", store, "--allow-host", "127.0.0.1"], { terminal })
      expect(chat.code).toBe(0)
      expect(chat.stdout).toContain("(resuming message 1, which a stopped chat left unanswered)")
      expect(chat.stdout).toContain("approve fetch_url(")
      expect((yield* agentfx(["--log-level", "error", "runs", "show", "web/1", "--store", store, "--json"])).stdout).toContain("the user said no")
    })
  )
})
