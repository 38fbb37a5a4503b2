/**
 * Stores that cannot be used, each refused in one line that names it and says why: a path that is a directory or
 * under a file, a SQLite store another live process runs (one that died is taken over), a database that does not
 * answer (its password never shown).
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Logger, LogLevel } from "effect"
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import { DurableAgent } from "../src/index.js"
import { freshStore } from "./support/inProcess.js"

/** The cluster's warnings of a runner closed at once are not the test's output. */
const quiet = Logger.withMinimumLogLevel(LogLevel.Error)
const open = <A, E>(layer: Layer.Layer<A, E>) => quiet(Effect.flip(Effect.scoped(Layer.build(layer))))

/** Runs statements on a store file directly, as another program would. */
const direct = <A>(filename: string, f: (sql: SqlClient.SqlClient) => Effect.Effect<A, unknown>) =>
  Effect.flatMap(SqlClient.SqlClient, f).pipe(Effect.provide(SqliteClient.layer({ filename })), Effect.orDie)

/** Writes the row of a store's holder, as a process that ran it leaves it. */
const heldBy = (filename: string, pid: number) =>
  direct(filename, (sql) =>
    Effect.zipRight(
      sql`CREATE TABLE IF NOT EXISTS agentfx_owner (id INTEGER PRIMARY KEY CHECK (id = 1), pid INTEGER NOT NULL, host TEXT NOT NULL, since BIGINT NOT NULL)`,
      sql`INSERT INTO agentfx_owner (id, pid, host, since) VALUES (1, ${pid}, ${os.hostname()}, ${Date.now()})`
    )
  )

describe("stores that cannot be used", () => {
  it.live("a path that is a directory is StoreUnavailable, in one line", () =>
    Effect.gen(function* () {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "durable-dir-"))
      const error = yield* open(DurableAgent.layerSqlite({ filename: dir }))
      expect(error).toMatchObject({ _tag: "StoreUnavailable" })
      expect((error as Error).message).toBe(`the run store ${dir} cannot be used: it is a directory`)
    }))

  it.live("a path under a file cannot be created: StoreUnavailable, and the file is untouched", () =>
    Effect.gen(function* () {
      const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "durable-file-")), "notes.txt")
      fs.writeFileSync(file, "keep me")
      const error = yield* open(DurableAgent.layerSqlite({ filename: path.join(file, "runs.db") }))
      expect(error).toMatchObject({ _tag: "StoreUnavailable" })
      expect((error as Error).message).toMatch(/^the run store .*notes\.txt\/runs\.db cannot be used: .*notes\.txt is a file, not a folder$/)
      expect((error as Error).message).not.toContain("\n")
      expect(fs.readFileSync(file, "utf8")).toBe("keep me")
    }))

  it.live("a SQLite store run by another live process is StoreBusy, naming it", () =>
    Effect.gen(function* () {
      const filename = freshStore()
      yield* heldBy(filename, process.ppid)
      const error = yield* open(DurableAgent.layerSqlite({ filename }))
      expect((error as Error).message).toBe(
        `the run store ${filename} is run by process ${process.ppid} on ${os.hostname()}; a SQLite store serves one process at a time (PostgreSQL serves several)`
      )
    }))

  it.live("a SQLite store whose process died is taken over at once", () =>
    Effect.gen(function* () {
      const filename = freshStore()
      const dead = spawnSync(process.execPath, ["-e", ""]).pid
      yield* heldBy(filename, dead)
      const held = yield* quiet(Effect.scoped(Effect.zipRight(Layer.build(DurableAgent.layerSqlite({ filename })), direct(filename, (sql) => sql`SELECT pid FROM agentfx_owner`))))
      expect(held).toEqual([{ pid: process.pid }])
      // Released when the layer closed: the next process finds it free.
      expect(yield* direct(filename, (sql) => sql`SELECT pid FROM agentfx_owner`)).toEqual([])
    }))

  it.live("a database that does not answer is StoreUnavailable, its URL shown without the user name and password", () =>
    Effect.gen(function* () {
      const error = yield* open(DurableAgent.layerPg({ url: "postgres://agentfx:s3cret@127.0.0.1:1/runs" }))
      expect(error).toMatchObject({ _tag: "StoreUnavailable" })
      const message = (error as Error).message
      expect(message).toMatch(/^the run store postgres:\/\/\*\*\*@127\.0\.0\.1:1\/runs cannot be used: .*ECONNREFUSED/)
      expect(message).not.toContain("s3cret")
      expect(message).not.toContain("\n")
    }))

  it.live("a password given as a URL parameter (pg reads ?password=) is not shown either, by the runner or the reader", () =>
    Effect.gen(function* () {
      const url = "postgresql://127.0.0.1:1/runs?application_name=agentfx&password=s3cret"
      for (const layer of [DurableAgent.layerPg({ url }), DurableAgent.layerPgReader({ url })]) {
        const message = ((yield* open(layer)) as Error).message
        expect(message).toMatch(/^the run store postgresql:\/\/127\.0\.0\.1:1\/runs\?application_name=agentfx&password=\*\*\* cannot be used: .*ECONNREFUSED/)
        expect(message).not.toContain("s3cret")
      }
    }))

  it.live("a database URL that does not parse is not quoted: StoreUnavailable says it is unreadable", () =>
    Effect.gen(function* () {
      const error = yield* open(DurableAgent.layerPgReader({ url: "postgres://agentfx:s3cret@db:port/runs" }))
      expect(error).toMatchObject({ _tag: "StoreUnavailable" })
      expect((error as Error).message).toBe("the run store the database URL (unreadable) cannot be used: Invalid URL")
    }))
})
