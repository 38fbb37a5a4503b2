/**
 * The PostgreSQL of the tests: AGENTFX_TEST_PG_URL (set by .ci/run, which starts the server); outside CI, when it
 * is not set, scripts/postgres.mjs starts the machine's own server and makes the test role. In CI a missing
 * variable fails the test: the PostgreSQL tests never quietly skip. Each test gets a database of its own, dropped
 * after it (runners' advisory locks are per database, so tests sharing one would share their shards).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as PgClient from "@effect/sql-pg/PgClient"
import { Effect, Redacted } from "effect"
import { spawnSync } from "node:child_process"
import { randomBytes } from "node:crypto"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..")

let located: string | undefined
const serverUrl = (): string => {
  const set = process.env.AGENTFX_TEST_PG_URL
  if (set !== undefined && set !== "") return set
  if (process.env.CI !== undefined && process.env.CI !== "") throw new Error("AGENTFX_TEST_PG_URL is not set: .ci/run starts PostgreSQL and sets it")
  if (located === undefined) {
    const found = spawnSync(process.execPath, [path.join(repo, "scripts", "postgres.mjs")], { encoding: "utf8" })
    if (found.status !== 0) throw new Error(`no PostgreSQL for the durable tests: ${found.stderr.trim()}`)
    located = found.stdout.trim()
  }
  return located
}

const admin = <A>(f: (sql: SqlClient.SqlClient) => Effect.Effect<A, unknown>) =>
  Effect.flatMap(SqlClient.SqlClient, f).pipe(Effect.provide(PgClient.layer({ url: Redacted.make(serverUrl()) })), Effect.orDie)

/** A fresh database: its URL, and how to drop it. */
export const freshDatabase = async (): Promise<{ readonly url: string; readonly drop: () => Promise<void> }> => {
  const name = `agentfx_t_${randomBytes(6).toString("hex")}`
  await Effect.runPromise(admin((sql) => sql.unsafe(`CREATE DATABASE ${name}`)))
  const url = new URL(serverUrl())
  url.pathname = `/${name}`
  return { url: url.toString(), drop: () => Effect.runPromise(Effect.asVoid(admin((sql) => sql.unsafe(`DROP DATABASE ${name} WITH (FORCE)`)))) }
}

/** Runs a query on a test database. */
export const query = <A extends object>(url: string, text: string): Promise<ReadonlyArray<A>> =>
  Effect.runPromise(Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe<A>(text)).pipe(Effect.provide(PgClient.layer({ url: Redacted.make(url) })), Effect.orDie))
