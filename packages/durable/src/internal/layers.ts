/**
 * The stores a durable agent runs on. SQLite: the embedded default, one process at a time (a row in the file
 * names the process that runs it; one that died is taken over at once), no server, every shard its own.
 * PostgreSQL: several runner processes, each listening on its own address; @effect/cluster shards the runs over
 * them and hands a dead runner's shards to the others.
 */
import * as HttpUrl from "@agentfx/core/HttpUrl"
import * as ClusterWorkflowEngine from "@effect/cluster/ClusterWorkflowEngine"
import * as RunnerAddress from "@effect/cluster/RunnerAddress"
import * as SingleRunner from "@effect/cluster/SingleRunner"
import * as NodeClusterSocket from "@effect/platform-node/NodeClusterSocket"
import * as SqlClient from "@effect/sql/SqlClient"
import * as PgClient from "@effect/sql-pg/PgClient"
import type { WorkflowEngine } from "@effect/workflow/WorkflowEngine"
import * as Cause from "effect/Cause"
import type * as ConfigError from "effect/ConfigError"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schedule from "effect/Schedule"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import type { PgOptions, SqliteOptions } from "../DurableAgent.js"
import { StoreBusy, StoreUnavailable } from "../DurableError.js"
import { RunStore } from "../RunStore.js"
import * as Delivery from "./delivery.js"
import * as Store from "./store.js"

/** A message as one line (a driver's may run over several). */
const oneLine = (text: string): string => text.replace(/\s*\n\s*/g, " ").trim()

/** A cause as one line: the first failure's or defect's message. */
const reasonOf = (cause: Cause.Cause<unknown>): string => {
  const error = Cause.squash(cause)
  const inner = error instanceof Error && error.cause instanceof Error ? error.cause : error
  return oneLine(inner instanceof Error ? inner.message : String(inner))
}

const driver = "the SQLite driver (better-sqlite3, a native module) cannot be loaded"

/**
 * Why the driver's native part does not load, when that is what `error` says: installed without it being built
 * (install scripts off, or a build that failed), or built for another Node.js or platform. It loads only when the
 * first database is opened, after the driver's module itself was imported.
 */
const nativeProblem = (error: unknown): string | undefined => {
  if (!(error instanceof Error)) return undefined
  if (error.message.startsWith("Could not locate the bindings file")) return "its native part was never built (no better_sqlite3.node)"
  if ((error as NodeJS.ErrnoException).code === "ERR_DLOPEN_FAILED" || error.message.includes("NODE_MODULE_VERSION")) return oneLine(error.message)
  return undefined
}

/**
 * A database URL as messages show it: its user name and password hidden as core hides them in any URL, and so is a
 * parameter that names a password (pg reads `?password=` as the password); a URL that does not parse is not quoted.
 */
const storeName = (url: string): string => {
  if (!URL.canParse(url)) return "the database URL (unreadable)"
  const shown = new URL(HttpUrl.redact(url))
  for (const key of new Set(shown.searchParams.keys())) if (/password/i.test(key)) shown.searchParams.set(key, "***")
  return shown.toString()
}

/** A file that can hold a database: not a directory, its folder there (created) and writable. */
const checkFile = (filename: string): Effect.Effect<void, StoreUnavailable> =>
  Effect.try({
    try: () => {
      if (fs.existsSync(filename) && fs.statSync(filename).isDirectory()) throw new Error("it is a directory")
      const folder = path.dirname(path.resolve(filename))
      // The nearest part of the path that exists must be a folder (a file there would make mkdir say EEXIST).
      let existing = folder
      while (!fs.existsSync(existing)) existing = path.dirname(existing)
      if (!fs.statSync(existing).isDirectory()) throw new Error(`${existing} is a file, not a folder`)
      fs.mkdirSync(folder, { recursive: true })
      fs.accessSync(folder, fs.constants.W_OK)
      if (fs.existsSync(filename)) fs.accessSync(filename, fs.constants.R_OK | fs.constants.W_OK)
    },
    catch: (error) => new StoreUnavailable({ store: filename, reason: error instanceof Error ? error.message : String(error) })
  })

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: the process exists, under another user.
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

/** Holds the file for this process while the layer lives; a live holder on this host (or any on another) refuses. */
const owner = (store: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const host = os.hostname()
    const claim = Effect.gen(function* () {
      yield* sql`CREATE TABLE IF NOT EXISTS agentfx_owner (id INTEGER PRIMARY KEY CHECK (id = 1), pid INTEGER NOT NULL, host TEXT NOT NULL, since BIGINT NOT NULL)`
      const rows = yield* sql<{ pid: number; host: string }>`SELECT pid, host FROM agentfx_owner WHERE id = 1`
      const holder = rows[0]
      if (holder !== undefined && holder.pid !== process.pid && (holder.host !== host || alive(holder.pid))) {
        return yield* Effect.fail(new StoreBusy({ store, pid: holder.pid, host: holder.host }))
      }
      yield* sql`INSERT INTO agentfx_owner (id, pid, host, since) VALUES (1, ${process.pid}, ${host}, ${Date.now()})
        ON CONFLICT (id) DO UPDATE SET pid = ${process.pid}, host = ${host}, since = ${Date.now()}`
    })
    yield* Effect.acquireRelease(
      sql.withTransaction(claim).pipe(Effect.catchTag("SqlError", (error) => Effect.fail(new StoreUnavailable({ store, reason: error.message })))),
      () => Effect.ignore(sql`DELETE FROM agentfx_owner WHERE id = 1 AND pid = ${process.pid} AND host = ${host}`)
    )
  })

const storeLayer = (name: string): Layer.Layer<RunStore, StoreUnavailable, SqlClient.SqlClient> => Layer.effect(RunStore, Store.make(name))

/**
 * The SQLite client of `store`, its driver loaded only now: better-sqlite3 is native and optional where agentfx is
 * installed as one command, and a process on PostgreSQL never needs it.
 */
const sqliteClient = (store: string): Layer.Layer<SqlClient.SqlClient, StoreUnavailable> =>
  Layer.unwrapEffect(
    Effect.zipRight(
      checkFile(store),
      Effect.tryPromise({
        try: () => import("@effect/sql-sqlite-node/SqliteClient"),
        catch: (error) =>
          new StoreUnavailable({
            store,
            reason: `${driver}: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}; install it (npm i better-sqlite3@12, beside agentfx) or use a postgres:// store`
          })
      }).pipe(
        Effect.map((SqliteClient) =>
          SqliteClient.layer({ filename: store }).pipe(
            Layer.catchAllCause((cause): Layer.Layer<SqlClient.SqlClient, ConfigError.ConfigError | StoreUnavailable> => {
              const problem = nativeProblem(Cause.squash(cause))
              return problem === undefined
                ? Layer.failCause(cause)
                : Layer.fail(new StoreUnavailable({ store, reason: `${driver}: ${problem}; rebuild it where it is installed (npm rebuild better-sqlite3) or use a postgres:// store` }))
            })
          )
        )
      )
    )
  ).pipe(
    Layer.catchAllCause((cause) => {
      const failure = Option.getOrUndefined(Cause.failureOption(cause))
      return Layer.fail(failure instanceof StoreUnavailable ? failure : new StoreUnavailable({ store, reason: reasonOf(cause) }))
    })
  )

/** `DurableAgent.layerSqlite`: the engine on one runner of its own, the file held by this process while the layer lives. */
export const layerSqlite = (options: SqliteOptions): Layer.Layer<WorkflowEngine | RunStore | SqlClient.SqlClient, StoreUnavailable | StoreBusy> => {
  const store = options.filename
  const client = sqliteClient(store)
  const engine = ClusterWorkflowEngine.layer.pipe(
    Layer.provideMerge(SingleRunner.layer({ runnerStorage: "memory", shardingConfig: { entityMessagePollInterval: "1 second" } })),
    Layer.tap(Delivery.track),
    Layer.orDie
  )
  return Layer.mergeAll(engine, storeLayer(store)).pipe(
    Layer.provide(Layer.scopedDiscard(owner(store))),
    Layer.provideMerge(client)
  ) as Layer.Layer<WorkflowEngine | RunStore | SqlClient.SqlClient, StoreUnavailable | StoreBusy>
}

/** `DurableAgent.layerPg`: this process a runner (or a client only) of the cluster whose shards the database holds. */
export const layerPg = (options: PgOptions): Layer.Layer<WorkflowEngine | RunStore | SqlClient.SqlClient, StoreUnavailable> => {
  const store = storeName(options.url)
  const client = PgClient.layer({ url: Redacted.make(options.url), connectTimeout: "5 seconds" }).pipe(
    Layer.catchAllCause((cause) => Layer.fail(new StoreUnavailable({ store, reason: reasonOf(cause) })))
  )
  const runner = options.runner ?? { host: "localhost", port: 34431 }
  const cluster = NodeClusterSocket.layer({
    storage: "sql",
    clientOnly: options.clientOnly === true,
    shardingConfig: {
      runnerAddress: Option.some(RunnerAddress.make(runner.host, runner.port)),
      ...(options.shardLockExpiration === undefined ? {} : { shardLockExpiration: options.shardLockExpiration }),
      ...(options.shardLockRefreshInterval === undefined ? {} : { shardLockRefreshInterval: options.shardLockRefreshInterval }),
      ...(options.runnerHealthCheckInterval === undefined ? {} : { runnerHealthCheckInterval: options.runnerHealthCheckInterval }),
      entityMessagePollInterval: options.messagePollInterval ?? "1 second"
    }
  })
  // Runners started together on a new database race to create @effect/cluster's tables (PostgreSQL refuses the
  // second CREATE TABLE IF NOT EXISTS of a type at the same moment): the loser builds again, and finds them.
  const engine = ClusterWorkflowEngine.layer.pipe(
    Layer.provideMerge(cluster),
    Layer.tap(Delivery.track),
    Layer.catchAllCause((cause) => Layer.fail(cause)),
    Layer.retry(Schedule.intersect(Schedule.recurs(3), Schedule.spaced("250 millis"))),
    Layer.catchAll((cause) => Layer.failCause(cause)),
    Layer.orDie
  )
  return Layer.mergeAll(engine, storeLayer(store)).pipe(Layer.provideMerge(client)) as Layer.Layer<WorkflowEngine | RunStore | SqlClient.SqlClient, StoreUnavailable>
}

/** `DurableAgent.layerSqliteReader`: the run store alone, no engine and no claim on the file. */
export const layerSqliteReader = (options: SqliteOptions): Layer.Layer<RunStore | SqlClient.SqlClient, StoreUnavailable> => {
  const store = options.filename
  const client = sqliteClient(store)
  return storeLayer(store).pipe(Layer.provideMerge(client)) as Layer.Layer<RunStore | SqlClient.SqlClient, StoreUnavailable>
}

/** `DurableAgent.layerPgReader`: the run store alone, no engine and no runner. */
export const layerPgReader = (options: Pick<PgOptions, "url">): Layer.Layer<RunStore | SqlClient.SqlClient, StoreUnavailable> => {
  const store = storeName(options.url)
  const client = PgClient.layer({ url: Redacted.make(options.url), connectTimeout: "5 seconds" }).pipe(
    Layer.catchAllCause((cause) => Layer.fail(new StoreUnavailable({ store, reason: reasonOf(cause) })))
  )
  return storeLayer(store).pipe(Layer.provideMerge(client)) as Layer.Layer<RunStore | SqlClient.SqlClient, StoreUnavailable>
}
