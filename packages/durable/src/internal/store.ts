/**
 * The run store on any SQL database @effect/sql speaks (SQLite and PostgreSQL here): four tables, created when
 * missing, written with statements both dialects read. Event numbers are per run; appends are serialised within
 * the process, and a clash with another process (two runners in a takeover) is retried.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import { RunConflict, StoreUnavailable } from "../DurableError.js"
import * as RunEvent from "../RunEvent.js"
import type { PendingApproval } from "../RunStatus.js"
import type { Row, Service } from "../RunStore.js"

const encodeEvent = Schema.encodeSync(Schema.parseJson(RunEvent.RunEvent))
const decodeEvent = Schema.decodeUnknownSync(Schema.parseJson(RunEvent.RunEvent))
const ArgsJson = Schema.parseJson(Schema.Record({ key: Schema.String, value: Schema.Unknown }))
const encodeArgs = Schema.encodeSync(ArgsJson)
const decodeArgs = Schema.decodeUnknownSync(ArgsJson)

interface RunRow {
  readonly run_id: string
  readonly agent: string
  readonly workflow: string
  readonly fingerprint: string
  readonly state: Row["state"]
  readonly outcome: string | null
  readonly created_at: number | string
  readonly updated_at: number | string
}

const rowOf = (row: RunRow): Row => ({
  runId: row.run_id,
  agent: row.agent,
  workflow: row.workflow,
  state: row.state,
  outcome: row.outcome,
  // PostgreSQL hands BIGINT back as text.
  createdAt: Number(row.created_at),
  updatedAt: Number(row.updated_at)
})

/** Creates the tables when missing and builds the service; `name` says which store, for messages. */
export const make = (name: string): Effect.Effect<Service, StoreUnavailable, SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const unavailable = (error: SqlError) => new StoreUnavailable({ store: name, reason: error.message })
    const orUnavailable = <A>(effect: Effect.Effect<A, SqlError>): Effect.Effect<A, StoreUnavailable> => Effect.mapError(effect, unavailable)

    yield* orUnavailable(
      Effect.all(
        [
          sql`CREATE TABLE IF NOT EXISTS agentfx_runs (
            run_id TEXT PRIMARY KEY, agent TEXT NOT NULL, workflow TEXT NOT NULL, fingerprint TEXT NOT NULL,
            state TEXT NOT NULL, outcome TEXT, created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL)`,
          sql`CREATE TABLE IF NOT EXISTS agentfx_events (
            run_id TEXT NOT NULL, seq INTEGER NOT NULL, key TEXT NOT NULL, event TEXT NOT NULL,
            PRIMARY KEY (run_id, seq), UNIQUE (run_id, key))`,
          sql`CREATE TABLE IF NOT EXISTS agentfx_approvals (
            run_id TEXT NOT NULL, call_id TEXT NOT NULL, name TEXT NOT NULL, args TEXT NOT NULL, description TEXT NOT NULL,
            deadline BIGINT, decision TEXT, PRIMARY KEY (run_id, call_id))`,
          sql`CREATE TABLE IF NOT EXISTS agentfx_started (
            run_id TEXT NOT NULL, call_id TEXT NOT NULL, started_at BIGINT NOT NULL, PRIMARY KEY (run_id, call_id))`
        ],
        { discard: true }
      ).pipe(
        // Processes opening a new database at once race to create the tables; the loser tries again and finds them.
        Effect.retry({ times: 3, schedule: Schedule.spaced("250 millis") })
      )
    )

    const appends = yield* Effect.makeSemaphore(1)
    const get = (runId: string) =>
      orUnavailable(sql<RunRow>`SELECT * FROM agentfx_runs WHERE run_id = ${runId}`).pipe(Effect.map((rows) => (rows[0] === undefined ? undefined : rowOf(rows[0]))))

    const service: Service = {
      name,
      claim: ({ agent, fingerprint, runId, workflow }) =>
        Effect.gen(function* () {
          const now = Date.now()
          const inserted = yield* orUnavailable(sql`
            INSERT INTO agentfx_runs (run_id, agent, workflow, fingerprint, state, outcome, created_at, updated_at)
            VALUES (${runId}, ${agent}, ${workflow}, ${fingerprint}, 'running', NULL, ${now}, ${now})
            ON CONFLICT (run_id) DO NOTHING RETURNING run_id`)
          if (inserted.length > 0) return "new" as const
          const rows = yield* orUnavailable(sql<RunRow>`SELECT * FROM agentfx_runs WHERE run_id = ${runId}`)
          const existing = rows[0]
          if (existing !== undefined && existing.agent === agent && existing.fingerprint === fingerprint) return "existing" as const
          return yield* Effect.fail(new RunConflict({ runId, agent, existingAgent: existing?.agent ?? agent }))
        }),
      get,
      list: orUnavailable(sql<RunRow>`SELECT * FROM agentfx_runs ORDER BY created_at, run_id`).pipe(Effect.map((rows) => rows.map(rowOf))),
      settle: (runId, state, outcome) =>
        // Only a running run takes an outcome, once: a cancelled run stays cancelled, a finished one finished. Settling
        // again with the outcome it has (a run replayed after a crash) changes nothing, and says so.
        orUnavailable(sql`
          UPDATE agentfx_runs SET state = ${state},
            outcome = CASE WHEN state = 'running' THEN ${outcome} ELSE outcome END,
            updated_at = CASE WHEN state = 'running' THEN ${Date.now()} ELSE updated_at END
          WHERE run_id = ${runId} AND state IN ('running', ${state}) RETURNING run_id`).pipe(Effect.map((rows) => rows.length > 0)),
      append: (runId, key, event) =>
        appends.withPermits(1)(
          // One statement: the event is numbered and stored only while the run has no Done. Two processes appending to
          // the same run at once (the runner and the canceller) compute the same number; the second fails on it, and
          // its retry sees the first's row — so nothing is ever numbered after a Done.
          orUnavailable(sql<{ seq: number | string }>`
            INSERT INTO agentfx_events (run_id, seq, key, event)
            SELECT CAST(${runId} AS TEXT), COALESCE((SELECT MAX(seq) + 1 FROM agentfx_events WHERE run_id = ${runId}), 0),
              CAST(${key} AS TEXT), CAST(${encodeEvent(event)} AS TEXT)
            WHERE NOT EXISTS (SELECT 1 FROM agentfx_events WHERE run_id = ${runId} AND key = 'done')
            ON CONFLICT (run_id, key) DO NOTHING RETURNING seq`).pipe(
            // Another process appending to the same run at the same moment took the number: take the next.
            Effect.retry({ times: 5, schedule: Schedule.spaced("10 millis") }),
            Effect.flatMap((inserted) =>
              inserted.length > 0
                ? Effect.succeed(true)
                : // Not stored: appended before under this key (a replayed step), or the run has ended.
                  Effect.map(orUnavailable(sql`SELECT 1 AS ended FROM agentfx_events WHERE run_id = ${runId} AND key = 'done'`), (done) => done.length === 0)
            )
          )
        ),
      events: (runId, offset) =>
        orUnavailable(
          sql<{ seq: number | string; event: string }>`SELECT seq, event FROM agentfx_events WHERE run_id = ${runId} AND seq >= ${offset} ORDER BY seq`
        ).pipe(Effect.map((rows) => rows.map((row) => ({ offset: Number(row.seq), event: decodeEvent(row.event) })))),
      request: (runId, approval) =>
        orUnavailable(sql`
          INSERT INTO agentfx_approvals (run_id, call_id, name, args, description, deadline, decision)
          VALUES (${runId}, ${approval.callId}, ${approval.name}, ${encodeArgs(approval.args)}, ${approval.description}, ${approval.deadline}, NULL)
          ON CONFLICT (run_id, call_id) DO NOTHING`).pipe(Effect.asVoid),
      decide: (runId, callId, decision) =>
        orUnavailable(sql`
          UPDATE agentfx_approvals SET decision = ${decision}
          WHERE run_id = ${runId} AND call_id = ${callId} AND decision IS NULL RETURNING call_id`).pipe(Effect.map((rows) => rows.length > 0)),
      pending: (runId) =>
        orUnavailable(
          sql<{ call_id: string; name: string; args: string; description: string; deadline: number | string | null }>`
            SELECT call_id, name, args, description, deadline FROM agentfx_approvals WHERE run_id = ${runId} AND decision IS NULL ORDER BY call_id`
        ).pipe(
          Effect.map((rows) =>
            rows.map(
              (row): PendingApproval => ({
                callId: row.call_id,
                name: row.name,
                args: decodeArgs(row.args),
                description: row.description,
                deadline: row.deadline === null ? null : Number(row.deadline)
              })
            )
          )
        ),
      start: (runId, callId) =>
        orUnavailable(sql`
          INSERT INTO agentfx_started (run_id, call_id, started_at) VALUES (${runId}, ${callId}, ${Date.now()})
          ON CONFLICT (run_id, call_id) DO NOTHING RETURNING call_id`).pipe(Effect.map((rows) => rows.length > 0))
    }
    return service
  })
