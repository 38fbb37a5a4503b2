/**
 * The PostgreSQL of the tests: the server scripts/testPostgres.mjs finds (the CLI's durable tests use the same). Each
 * test gets a database of its own, dropped after it (runners' advisory locks are per database, so tests sharing one
 * would share their shards).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as PgClient from "@effect/sql-pg/PgClient"
import { Effect, Redacted } from "effect"
import { randomBytes } from "node:crypto"
import { testServerUrl } from "../../../../scripts/testPostgres.mjs"

const admin = <A>(f: (sql: SqlClient.SqlClient) => Effect.Effect<A, unknown>) =>
  Effect.flatMap(SqlClient.SqlClient, f).pipe(Effect.provide(PgClient.layer({ url: Redacted.make(testServerUrl()) })), Effect.orDie)

/** A fresh database: its URL, and how to drop it. */
export const freshDatabase = async (): Promise<{ readonly url: string; readonly drop: () => Promise<void> }> => {
  const name = `agentfx_t_${randomBytes(6).toString("hex")}`
  await Effect.runPromise(admin((sql) => sql.unsafe(`CREATE DATABASE ${name}`)))
  const url = new URL(testServerUrl())
  url.pathname = `/${name}`
  return { url: url.toString(), drop: () => Effect.runPromise(Effect.asVoid(admin((sql) => sql.unsafe(`DROP DATABASE ${name} WITH (FORCE)`)))) }
}

/** Runs a query on a test database. */
export const query = <A extends object>(url: string, text: string): Promise<ReadonlyArray<A>> =>
  Effect.runPromise(Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe<A>(text)).pipe(Effect.provide(PgClient.layer({ url: Redacted.make(url) })), Effect.orDie))
