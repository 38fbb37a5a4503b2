/**
 * What `run --durable` and `agentfx runs` print, exactly, for a run in each state a SQLite store holds: finished,
 * waiting for approval, failed, running (another process runs it) and cancelled — as text and as `--json` — and the
 * usage errors of each action. In-process (`Cli.main` on an in-memory terminal): the spawned executable's tests
 * (Executable.test.ts, Contracts.test.ts) check the same paths from outside, too slowly to measure the code by.
 */
import { Registry } from "@agentfx/core"
import { Scripted } from "@agentfx/core/testing"
import { DurableAgent } from "@agentfx/durable"
import { Fault } from "@agentfx/emulator"
import * as NodeContext from "@effect/platform-node/NodeContext"
import { describe, expect, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as fs from "node:fs"
import * as path from "node:path"
import { agentfx, emulator, tempDir, viaGemini } from "./support/cli.js"

const quiet = ["--log-level", "error"]

/** The lines of stderr after the first (the provider's), as run, resume and approve print them. */
const afterProvider = (stderr: string): ReadonlyArray<string> => stderr.split("\n").slice(1)

/** A time as `runs list` and `runs show` print it: UTC, to the second. */
const shownTime = (epoch: number): string => new Date(epoch).toISOString().slice(0, 19).replace("T", " ")

interface Listed {
  readonly runId: string
  readonly agent: string
  readonly createdAt: number
  readonly updatedAt: number
  readonly state: string
}

/** `runs list --json`, read: the times the text output shows. */
const listed = (store: string) =>
  Effect.map(agentfx([...quiet, "runs", "list", "--json", "--store", store]), (outcome) => JSON.parse(outcome.stdout) as ReadonlyArray<Listed>)

const sumEvents = [
  '0\tTurnFinished\t{"turn":1,"text":"","calls":[{"id":"call_0_0","name":"calculator","args":{"expression":"2 + 3"}}],"usage":{"inputTokens":4,"outputTokens":6,"totalTokens":10}}',
  '1\tCallStarted\t{"turn":1,"call":{"id":"call_0_0","name":"calculator","args":{"expression":"2 + 3"}}}',
  '2\tCallFinished\t{"turn":1,"response":{"_tag":"FunctionResponse","id":"call_0_0","name":"calculator","response":{"expression":"2 + 3","result":5},"isError":false}}',
  '3\tTurnFinished\t{"turn":2,"text":"2 + 3 = 5.","calls":[],"usage":{"inputTokens":23,"outputTokens":3,"totalTokens":26}}',
  '4\tDone\t{"outcome":"finished","text":"2 + 3 = 5."}'
]

const fetchCall = { callId: "call_0_0", name: "fetch_url", args: { url: "http://127.0.0.1:9/x" } }
const fetchDescription = "Fetches a web page or API response with an HTTP GET (hosts: 127.0.0.1). Returns status, content type and body text."

describe("agentfx run --durable and runs: what each prints", () => {
  it.scopedLive("a finished run: its calls and answer, its --json outcome, listed and shown with its times and events", () =>
    Effect.gen(function* () {
      const store = path.join(yield* tempDir, "runs.db")
      const ran = yield* agentfx([...quiet, "run", "--durable", "--run-id", "sum", "--store", store, "what is 2 + 3?"])
      expect([ran.code, ran.stdout]).toEqual([0, '→ calculator({"expression":"2 + 3"})\n← calculator: {"expression":"2 + 3","result":5}\n2 + 3 = 5.\n'])
      expect(afterProvider(ran.stderr)).toEqual([`run sum in ${store}`, ""])
      const outcome = {
        runId: "sum",
        state: "Finished",
        text: "2 + 3 = 5.",
        turns: 2,
        stopReason: { _tag: "Finished" },
        usage: { inputTokens: 27, outputTokens: 9, totalTokens: 36 },
        calls: [{ id: "call_0_0", name: "calculator", args: { expression: "2 + 3" }, turn: 1, isError: false, response: { expression: "2 + 3", result: 5 } }]
      }
      // The same id again attaches to the finished run; --json prints its outcome alone.
      const json = yield* agentfx([...quiet, "run", "--durable", "--json", "--run-id", "sum", "--store", store, "what is 2 + 3?"])
      expect([json.code, json.stdout]).toEqual([0, `${JSON.stringify(outcome, null, 2)}\n`])

      const [run] = yield* listed(store)
      expect(run).toEqual({ runId: "sum", agent: "agentfx", createdAt: expect.any(Number), updatedAt: expect.any(Number), state: "Finished" })
      const list = yield* agentfx([...quiet, "runs", "list", "--json", "--store", store])
      expect(list.stdout).toBe(`${JSON.stringify([run], null, 2)}\n`)
      expect(yield* agentfx([...quiet, "runs", "list", "--store", store])).toEqual({ code: 0, stdout: `sum\tFinished\tagentfx\t${shownTime(run!.updatedAt)}\n`, stderr: "" })

      const shown = yield* agentfx([...quiet, "runs", "show", "sum", "--store", store])
      expect(shown).toEqual({
        code: 0,
        stdout: [`sum\tFinished\tagentfx\tcreated ${shownTime(run!.createdAt)}\tupdated ${shownTime(run!.updatedAt)}`, ...sumEvents, ""].join("\n"),
        stderr: ""
      })
      const shownJson = yield* agentfx([...quiet, "runs", "show", "sum", "--json", "--store", store])
      const events = sumEvents.map((line) => {
        const [offset, _tag, rest] = line.split("\t")
        return { offset: Number(offset), event: { _tag, ...(JSON.parse(rest!) as object) } }
      })
      expect(JSON.parse(shownJson.stdout)).toEqual({ ...outcome, events })
      expect(shownJson.stdout).toBe(`${JSON.stringify(JSON.parse(shownJson.stdout), null, 2)}\n`)
    })
  )

  it.scopedLive("an empty store: runs list says so on stderr, and --json is an empty list", () =>
    Effect.gen(function* () {
      const store = path.join(yield* tempDir, "runs.db")
      expect(yield* agentfx([...quiet, "runs", "list", "--store", store])).toEqual({ code: 0, stdout: "", stderr: `no runs in ${store}\n` })
      expect(yield* agentfx([...quiet, "runs", "list", "--json", "--store", store])).toEqual({ code: 0, stdout: "[]\n", stderr: "" })
    })
  )

  it.scopedLive("a waiting run: the call it waits for, as run, resume and --json say it and as runs show lists it; approve --deny or approve runs the rest", () =>
    Effect.gen(function* () {
      const store = path.join(yield* tempDir, "runs.db")
      const hosts = ["--allow-host", "127.0.0.1"]
      const asked = `run web waits for approval of fetch_url({"url":"http://127.0.0.1:9/x"}): agentfx runs approve web call_0_0 (or --deny REASON)`
      const parked = yield* agentfx([...quiet, "run", "--durable", "--json", "--run-id", "web", "--store", store, ...hosts, "fetch http://127.0.0.1:9/x"])
      expect(parked.code).toBe(0)
      expect(afterProvider(parked.stderr)).toEqual([`run web in ${store}`, asked, ""])
      const [run] = yield* listed(store)
      const summary = { runId: "web", agent: "agentfx", createdAt: run!.createdAt, updatedAt: run!.updatedAt }
      const waiting = { state: "Waiting", ...summary, pending: [{ ...fetchCall, description: fetchDescription, deadline: null }] }
      expect(parked.stdout).toBe(`${JSON.stringify(waiting, null, 2)}\n`)

      const resumed = yield* agentfx([...quiet, "runs", "resume", "web", "--store", store, ...hosts])
      expect([resumed.code, resumed.stdout, afterProvider(resumed.stderr)]).toEqual([0, "", [asked, ""]])

      const shown = yield* agentfx([...quiet, "runs", "show", "web", "--store", store])
      expect(shown.stdout).toBe(
        [
          `web\tWaiting\tagentfx\tcreated ${shownTime(run!.createdAt)}\tupdated ${shownTime(run!.updatedAt)}`,
          'waits for approval: call_0_0 fetch_url({"url":"http://127.0.0.1:9/x"})',
          '0\tTurnFinished\t{"turn":1,"text":"","calls":[{"id":"call_0_0","name":"fetch_url","args":{"url":"http://127.0.0.1:9/x"}}],"usage":{"inputTokens":7,"outputTokens":8,"totalTokens":15}}',
          `1\tApprovalRequested\t{"call":{"id":"call_0_0","name":"fetch_url","args":{"url":"http://127.0.0.1:9/x"}},"description":"${fetchDescription}","deadline":null}`,
          ""
        ].join("\n")
      )
      const shownJson = JSON.parse((yield* agentfx([...quiet, "runs", "show", "web", "--json", "--store", store])).stdout) as { events: ReadonlyArray<{ offset: number }> }
      expect(shownJson).toEqual({ ...waiting, events: [expect.objectContaining({ offset: 0 }), expect.objectContaining({ offset: 1 })] })

      const denied = yield* agentfx([...quiet, "runs", "approve", "web", "call_0_0", "--deny", "not today", "--store", store, ...hosts])
      expect([denied.code, denied.stdout]).toEqual([
        0,
        '→ fetch_url({"url":"http://127.0.0.1:9/x"})\n' +
          '← fetch_url failed: {"error":{"type":"ApprovalDenied","message":"\\"fetch_url\\" was not approved: not today","reason":"not today"}}\n' +
          'fetch_url failed: "fetch_url" was not approved: not today.\n'
      ])
      // Approved (no --deny): the call runs, and fails as nothing listens there.
      yield* agentfx([...quiet, "run", "--durable", "--run-id", "web-2", "--store", store, ...hosts, "fetch http://127.0.0.1:9/y"])
      const approved = yield* agentfx([...quiet, "runs", "approve", "web-2", "call_0_0", "--store", store, ...hosts])
      expect([approved.code, approved.stdout.split("\n")]).toEqual([
        0,
        [
          '→ fetch_url({"url":"http://127.0.0.1:9/y"})',
          expect.stringMatching(/^← fetch_url failed: \{"error":\{"type":"ExecutionFailed",/),
          'fetch_url failed: "fetch_url" failed: fetching "http://127.0.0.1:9/y" failed: connect ECONNREFUSED 127.0.0.1:9.',
          ""
        ]
      ])
    })
  )

  it.scopedLive("a run the model fails: exit 1 and why, as text and as the --json Failed outcome, shown and resumed", () =>
    Effect.gen(function* () {
      const store = path.join(yield* tempDir, "runs.db")
      const server = yield* emulator()
      yield* server.inject(Fault.status(400, { message: "refused for the test" }), { times: 10 })
      const { env, flags } = viaGemini(server)
      const failed = yield* agentfx([...quiet, "run", "--durable", "--run-id", "doomed", "--store", store, ...flags, "hi"], { env })
      const why = "agentfx: run doomed failed: InvalidRequest: INVALID_ARGUMENT: refused for the test"
      expect([failed.code, failed.stdout, afterProvider(failed.stderr)]).toEqual([1, "", [`run doomed in ${store}`, why, ""]])
      const outcome = { runId: "doomed", state: "Failed", error: { type: "InvalidRequest", message: "INVALID_ARGUMENT: refused for the test" } }
      const resumed = yield* agentfx([...quiet, "runs", "resume", "doomed", "--json", "--store", store, ...flags], { env })
      expect([resumed.code, resumed.stdout, afterProvider(resumed.stderr)]).toEqual([1, `${JSON.stringify(outcome, null, 2)}\n`, [why, ""]])
      const [run] = yield* listed(store)
      const shown = yield* agentfx([...quiet, "runs", "show", "doomed", "--store", store])
      expect(shown.stdout).toBe(
        `doomed\tFailed\tagentfx\tcreated ${shownTime(run!.createdAt)}\tupdated ${shownTime(run!.updatedAt)}\n0\tDone\t{"outcome":"failed","text":"INVALID_ARGUMENT: refused for the test"}\n`
      )
      const shownJson = yield* agentfx([...quiet, "runs", "show", "doomed", "--json", "--store", store])
      expect(shownJson.stdout).toBe(`${JSON.stringify({ ...outcome, events: [{ offset: 0, event: { _tag: "Done", outcome: "failed", text: "INVALID_ARGUMENT: refused for the test" } }] }, null, 2)}\n`)
    })
  )

  it.scopedLive("a run another process runs is shown Running; cancelled there, it is shown Cancelled, and resume exits 1", () =>
    Effect.gen(function* () {
      const store = path.join(yield* tempDir, "runs.db")
      // Another runner of the store (this test) runs `stuck` on a model that never answers, then cancels it.
      const agent = DurableAgent.make("agentfx", { registry: Registry.empty })
      const gate = yield* Deferred.make<void>()
      const running = yield* Effect.gen(function* () {
        yield* agent.start({ runId: "stuck", prompt: "hi" })
        const list = yield* agentfx([...quiet, "runs", "list", "--store", store])
        const show = yield* agentfx([...quiet, "runs", "show", "stuck", "--json", "--store", store])
        yield* DurableAgent.cancel("stuck")
        // The model answers only now: a call still under way when the runner closes holds it up for 15 s.
        yield* Deferred.succeed(gate, undefined)
        return { list, show }
      }).pipe(
        Effect.provide(
          agent.layer.pipe(
            Layer.provideMerge(DurableAgent.layerSqlite({ filename: store })),
            Layer.provideMerge(Scripted.layer(() => Effect.as(Deferred.await(gate), { text: "too late" }))),
            Layer.provide(NodeContext.layer),
            // @effect/cluster warns of "no healthy runners" when a runner closes at once; tests print nothing.
            Layer.provide(Logger.minimumLogLevel(LogLevel.Error))
          )
        )
      )
      const [run] = yield* listed(store)
      const summary = { runId: "stuck", agent: "agentfx", createdAt: run!.createdAt }
      expect(running.list.stdout).toMatch(/^stuck\tRunning\tagentfx\t\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\n$/)
      expect(JSON.parse(running.show.stdout)).toEqual({ state: "Running", ...summary, updatedAt: expect.any(Number), events: [] })

      const cancelled = { state: "Cancelled", ...summary, updatedAt: run!.updatedAt }
      const shown = (yield* agentfx([...quiet, "runs", "show", "stuck", "--json", "--store", store])).stdout
      // What the model answered after the cancel is not recorded: the cancel is the run's one event, and its last.
      expect(shown).toBe(`${JSON.stringify({ ...cancelled, events: [{ offset: 0, event: { _tag: "Done", outcome: "cancelled", text: null } }] }, null, 2)}\n`)
      const resumed = yield* agentfx([...quiet, "runs", "resume", "stuck", "--store", store])
      expect([resumed.code, resumed.stdout, afterProvider(resumed.stderr)]).toEqual([1, "", ["agentfx: run stuck was cancelled", ""]])
      const resumedJson = yield* agentfx([...quiet, "runs", "resume", "stuck", "--json", "--store", store])
      expect([resumedJson.code, resumedJson.stdout]).toEqual([1, `${JSON.stringify(cancelled, null, 2)}\n`])
    })
  )

  it.scopedLive("runs cancel: a run that had already ended keeps its outcome, and the command says so", () =>
    Effect.gen(function* () {
      const store = path.join(yield* tempDir, "runs.db")
      yield* agentfx([...quiet, "run", "--durable", "--run-id", "sum", "--store", store, "what is 2 + 3?"])
      const cancel = yield* agentfx([...quiet, "runs", "cancel", "sum", "--store", store])
      expect(cancel).toEqual({ code: 0, stdout: "", stderr: "run sum had already ended (Finished): it keeps its outcome\n" })
      expect((yield* listed(store)).map((run) => run.state)).toEqual(["Finished"])
    })
  )

  it.scopedLive("runs cancel: a run that waits for approval is cancelled, the command says so, and resume exits 1", () =>
    Effect.gen(function* () {
      const store = path.join(yield* tempDir, "runs.db")
      const hosts = ["--allow-host", "127.0.0.1"]
      yield* agentfx([...quiet, "run", "--durable", "--run-id", "web", "--store", store, ...hosts, "fetch http://127.0.0.1:9/x"])
      // This process runs no agent: it stores the cancellation, and returns.
      const cancel = yield* agentfx([...quiet, "runs", "cancel", "web", "--store", store])
      expect(cancel).toEqual({ code: 0, stdout: "", stderr: "run web cancelled\n" })
      const resumed = yield* agentfx([...quiet, "runs", "resume", "web", "--store", store, ...hosts])
      expect([resumed.code, resumed.stdout, afterProvider(resumed.stderr)]).toEqual([1, "", ["agentfx: run web was cancelled", ""]])
      const shown = JSON.parse((yield* agentfx([...quiet, "runs", "show", "web", "--json", "--store", store])).stdout) as { state: string; events: ReadonlyArray<{ event: { _tag: string } }> }
      expect([shown.state, shown.events.map(({ event }) => event._tag)]).toEqual(["Cancelled", ["TurnFinished", "ApprovalRequested", "Done"]])
    })
  )

  it.scopedLive("a store is a PostgreSQL URL only when it starts with postgres:// or postgresql://: anything else is a SQLite file", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      // Not path.join, which would make the two slashes one.
      const store = `${dir}/postgres://runs.db`
      const ran = yield* agentfx([...quiet, "run", "--durable", "--run-id", "sum", "--store", store, "what is 2 + 3?"])
      expect(ran.code).toBe(0)
      expect(fs.statSync(path.join(dir, "postgres:", "runs.db")).isFile()).toBe(true)
    })
  )

  it.scopedLive("each action's usage: its arguments counted, --deny only with approve; one line, exit 2", () =>
    Effect.gen(function* () {
      const store = path.join(yield* tempDir, "runs.db")
      const runs = (...args: ReadonlyArray<string>) => Effect.map(agentfx([...quiet, "runs", ...args, "--store", store]), (outcome) => [outcome.code, outcome.stderr])
      expect(yield* runs("resume")).toEqual([2, "agentfx: agentfx runs resume ID: missing arguments\n"])
      expect(yield* runs("cancel", "a", "b")).toEqual([2, "agentfx: agentfx runs cancel ID: too many arguments\n"])
      expect(yield* runs("show")).toEqual([2, "agentfx: agentfx runs show ID: missing arguments\n"])
      expect(yield* runs("approve", "a", "b", "c")).toEqual([2, "agentfx: agentfx runs approve ID CALL: too many arguments\n"])
      expect(yield* runs("resume", "r1", "--deny", "no")).toEqual([2, "agentfx: --deny goes with runs approve\n"])
      expect(yield* runs("list", "--deny", "no")).toEqual([2, "agentfx: --deny goes with runs approve\n"])
    })
  )
})
