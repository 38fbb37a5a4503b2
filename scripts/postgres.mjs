/**
 * The PostgreSQL the durable tests run against: the machine's own (Debian's `postgresql` package), started when it
 * is down, with a role and a database for the tests (`agentfx`, created when missing). Prints the URL the tests
 * read from AGENTFX_TEST_PG_URL. `.ci/run` runs it (after installing the package where it is missing); the tests
 * run it themselves outside CI when the variable is not set. Needs root or the `postgres` user.
 *
 *   node scripts/postgres.mjs        → postgres://agentfx:agentfx@127.0.0.1:5432/agentfx
 */
import { execFileSync } from "node:child_process"
import { userInfo } from "node:os"

const run = (command, args) => execFileSync(command, args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] })

let clusters
try {
  clusters = run("pg_lsclusters", ["--no-header"])
} catch {
  console.error("PostgreSQL is not installed: install Debian's postgresql package (apt-get install -y postgresql), or set AGENTFX_TEST_PG_URL")
  process.exit(2)
}
const [version, name, port, status] = clusters.trim().split("\n")[0]?.trim().split(/\s+/) ?? []
if (version === undefined) {
  console.error("PostgreSQL is installed but has no cluster: create one (pg_createcluster 15 main), or set AGENTFX_TEST_PG_URL")
  process.exit(2)
}
if (status !== "online") run("pg_ctlcluster", [version, name, "start"])

/** Runs SQL as the postgres superuser over the local socket (peer authentication). */
const asPostgres = (sql, database = "postgres") => {
  const psql = ["psql", "-p", port, "-d", database, "-v", "ON_ERROR_STOP=1", "-tAc", sql]
  return (userInfo().username === "postgres" ? run(psql[0], psql.slice(1)) : run("runuser", ["-u", "postgres", "--", ...psql])).trim()
}

if (asPostgres("SELECT 1 FROM pg_roles WHERE rolname = 'agentfx'") !== "1") asPostgres("CREATE ROLE agentfx LOGIN CREATEDB PASSWORD 'agentfx'")
if (asPostgres("SELECT 1 FROM pg_database WHERE datname = 'agentfx'") !== "1") asPostgres("CREATE DATABASE agentfx OWNER agentfx")
console.log(`postgres://agentfx:agentfx@127.0.0.1:${port}/agentfx`)
