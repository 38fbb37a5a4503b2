/**
 * `run --durable` and `agentfx runs` on a PostgreSQL store (`--store postgres://…` or `postgresql://…`), in-process:
 * the run is recorded in the database (this process a runner on a free local port), listed, shown and cancelled from
 * it, a chat's messages are runs in it, and no message prints the URL's user name or password. A database of the test's own (support/postgres.ts).
 */
import { Io } from "@agentfx/cli"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as net from "node:net"
import { agentfx } from "./support/cli.js"
import { freshDatabase } from "./support/postgres.js"

const quiet = ["--log-level", "error"]

/** Holds `port` on 127.0.0.1 for the scope (or leaves it to whatever already holds it). */
const holdPort = (port: number): Effect.Effect<void, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.async<net.Server>((resume) => {
      const server = net.createServer()
      server.once("error", () => resume(Effect.succeed(server)))
      server.listen(port, "127.0.0.1", () => resume(Effect.succeed(server)))
    }),
    (server) =>
      Effect.async<void>((resume) => {
        if (server.listening) server.close(() => resume(Effect.void))
        else resume(Effect.void)
      })
  )

/** `url` as the messages show it: its user name and password left out. */
const shown = (url: string): string => {
  const parsed = new URL(url)
  return `${parsed.protocol}//***@${parsed.host}${parsed.pathname}`
}

describe("agentfx run --durable and runs on PostgreSQL", () => {
  it.scopedLive("a run recorded in the database, listed, shown and cancelled from it, and a chat's messages; the password never printed", () =>
    Effect.gen(function* () {
      const url = yield* freshDatabase
      expect(new URL(url).password).not.toBe("")
      const runs = (...args: ReadonlyArray<string>) => agentfx([...quiet, "runs", ...args, "--store", url])
      expect(yield* runs("list")).toEqual({ code: 0, stdout: "", stderr: `no runs in ${shown(url)}\n` })

      // postgresql:// names the same database.
      const other = url.replace(/^postgres:/, "postgresql:")
      const ran = yield* agentfx([...quiet, "run", "--durable", "--run-id", "sum", "--store", other, "what is 2 + 3?"])
      expect([ran.code, ran.stdout]).toEqual([0, '→ calculator({"expression":"2 + 3"})\n← calculator: {"expression":"2 + 3","result":5}\n2 + 3 = 5.\n'])
      expect(ran.stderr.split("\n").slice(1)).toEqual([`run sum in ${shown(other)}`, ""])

      const listed = JSON.parse((yield* runs("list", "--json")).stdout) as ReadonlyArray<{ runId: string; state: string }>
      expect(listed.map((run) => [run.runId, run.state])).toEqual([["sum", "Finished"]])
      const show = JSON.parse((yield* runs("show", "sum", "--json")).stdout) as { state: string; text: string; events: ReadonlyArray<{ event: { _tag: string } }> }
      expect([show.state, show.text, show.events.map(({ event }) => event._tag)]).toEqual(["Finished", "2 + 3 = 5.", ["TurnFinished", "CallStarted", "CallFinished", "TurnFinished", "Done"]])
      // Cancel, a client of the database that runs nothing and listens on no port (not even a runner's default, held
      // here): the finished run keeps its outcome.
      yield* holdPort(34431)
      expect(yield* runs("cancel", "sum")).toEqual({ code: 0, stdout: "", stderr: "run sum had already ended (Finished): it keeps its outcome\n" })
      expect(yield* runs("cancel", "nope")).toEqual({ code: 2, stdout: "", stderr: 'agentfx: no run "nope" in the store\n' })

      const terminal = yield* Io.memory()
      yield* terminal.feed("what is 10 * 2?")
      yield* terminal.end
      const chat = yield* agentfx([...quiet, "chat", "--durable", "--session", "notes", "--store", url], { terminal })
      expect([chat.code, chat.stdout]).toEqual([0, `session notes: new, each message a durable run in ${shown(url)}\nyou> what is 10 * 2?\n10 * 2 = 20.\nyou> \n`])
      expect((JSON.parse((yield* runs("list", "--json")).stdout) as ReadonlyArray<{ runId: string }>).map((run) => run.runId)).toEqual(["sum", "notes/1"])
    })
  )
})
