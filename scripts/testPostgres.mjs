// @ts-check
/**
 * The PostgreSQL server of the tests, for the durable package's and the CLI's (each test package compiles on its own,
 * so they share this script rather than a module of either): AGENTFX_TEST_PG_URL (set by .ci/run, which starts the
 * server); outside CI, when it is not set, scripts/postgres.mjs starts the machine's own server and makes the test
 * role. In CI a missing variable fails the test: the PostgreSQL tests never quietly skip.
 */
import { spawnSync } from "node:child_process"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const here = path.dirname(fileURLToPath(import.meta.url))

/** @type {string | undefined} */
let located

/** The server's URL (its default database); throws, saying why, when there is none. */
export const testServerUrl = () => {
  const set = process.env.AGENTFX_TEST_PG_URL
  if (set !== undefined && set !== "") return set
  if (process.env.CI !== undefined && process.env.CI !== "") throw new Error("AGENTFX_TEST_PG_URL is not set: .ci/run starts PostgreSQL and sets it")
  if (located === undefined) {
    const found = spawnSync(process.execPath, [path.join(here, "postgres.mjs")], { encoding: "utf8" })
    if (found.status !== 0) throw new Error(`no PostgreSQL for the durable tests: ${found.stderr.trim()}`)
    located = found.stdout.trim()
  }
  return located
}
