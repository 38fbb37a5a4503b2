/**
 * The PostgreSQL of the CLI's durable tests: the server scripts/testPostgres.mjs finds (the durable package's tests
 * use the same). Each test gets a database of its own, dropped after it (runners' advisory locks are per database: a
 * runner another test left would be given shards).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import { randomBytes } from "node:crypto"
import { testServerUrl } from "../../../../scripts/testPostgres.mjs"

const admin = (text: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(text)).pipe(Effect.provide(PgClient.layer({ url: Redacted.make(testServerUrl()) })), Effect.orDie, Effect.asVoid)

/** A database of the test's own, dropped with its scope: its URL. */
export const freshDatabase: Effect.Effect<string, never, Scope.Scope> = Effect.gen(function* () {
  const name = `agentfx_t_${randomBytes(6).toString("hex")}`
  yield* Effect.acquireRelease(admin(`CREATE DATABASE ${name}`), () => admin(`DROP DATABASE ${name} WITH (FORCE)`))
  const url = new URL(testServerUrl())
  url.pathname = `/${name}`
  return url.toString()
})
