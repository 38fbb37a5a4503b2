/**
 * The PostgreSQL of the CLI's durable tests, as packages/durable/test/support/postgres.ts has it (each test package
 * compiles on its own, so it cannot import that one): AGENTFX_TEST_PG_URL (set by .ci/run, which starts the server);
 * outside CI, when it is not set, scripts/postgres.mjs starts the machine's own server and makes the test role. In CI
 * a missing variable fails the test: the PostgreSQL tests never quietly skip. Each test gets a database of its own,
 * dropped after it (runners' advisory locks are per database: a runner another test left would be given shards).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
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

const admin = (text: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(text)).pipe(Effect.provide(PgClient.layer({ url: Redacted.make(serverUrl()) })), Effect.orDie, Effect.asVoid)

/** A database of the test's own, dropped with its scope: its URL. */
export const freshDatabase: Effect.Effect<string, never, Scope.Scope> = Effect.gen(function* () {
  const name = `agentfx_t_${randomBytes(6).toString("hex")}`
  yield* Effect.acquireRelease(admin(`CREATE DATABASE ${name}`), () => admin(`DROP DATABASE ${name} WITH (FORCE)`))
  const url = new URL(serverUrl())
  url.pathname = `/${name}`
  return url.toString()
})
