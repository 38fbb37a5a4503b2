/**
 * How a decision or a cancellation reaches a run's workflow from a process that does not run its agent. The
 * cluster's engine hands the message to the entity of the run's shard; when that shard is this process's (SQLite
 * holds every shard, a PostgreSQL runner its share) and the agent's workflow is not registered here, it waits for
 * the registration before it even stores the message — for ever: `agentfx runs cancel` on SQLite, or any process on
 * a store's engine layer that decides or cancels without the agent's layer. There the message is stored as the
 * engine stores it, and the process that runs the agent reads it when it opens the store. Anywhere else (the agent
 * runs here, or the shard is another runner's, which the engine notifies) the engine delivers it.
 */
import * as ClusterSchema from "@effect/cluster/ClusterSchema"
import { EntityAddress } from "@effect/cluster/EntityAddress"
import { EntityId } from "@effect/cluster/EntityId"
import { EntityType } from "@effect/cluster/EntityType"
import * as Envelope from "@effect/cluster/Envelope"
import * as Message from "@effect/cluster/Message"
import { MessageStorage } from "@effect/cluster/MessageStorage"
import { Sharding } from "@effect/cluster/Sharding"
import * as Headers from "@effect/platform/Headers"
import * as Rpc from "@effect/rpc/Rpc"
import type * as Workflow from "@effect/workflow/Workflow"
import { WorkflowEngine } from "@effect/workflow/WorkflowEngine"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { StoreUnavailable } from "../DurableError.js"

/** What an engine built by one of this package's layers has beside it: its cluster, and the agents run on it. */
interface Local {
  readonly sharding: Sharding["Type"]
  readonly storage: MessageStorage["Type"]
  /** Agent name → how many of its layers are built on this engine. */
  readonly running: Map<string, number>
}

/** Keyed by the engine itself: each layer's engine has its own entry, dropped with it. */
const locals = new WeakMap<WorkflowEngine["Type"], Local>()

/** Notes the engine a store layer built, with its cluster: `Layer.tap` it on the layer that builds them. */
export const track = (context: Context.Context<WorkflowEngine | Sharding | MessageStorage>): Effect.Effect<void> =>
  Effect.sync(() => locals.set(Context.get(context, WorkflowEngine), { sharding: Context.get(context, Sharding), storage: Context.get(context, MessageStorage), running: new Map() }))

/** Notes, while the layer lives, that this engine runs the agent named `name` (its workflow registered on it). */
export const running = (name: string): Layer.Layer<never, never, WorkflowEngine> =>
  Layer.scopedDiscard(
    Effect.flatMap(WorkflowEngine, (engine) => {
      const local = locals.get(engine)
      if (local === undefined) return Effect.void
      return Effect.acquireRelease(
        Effect.sync(() => local.running.set(name, (local.running.get(name) ?? 0) + 1)),
        () => Effect.sync(() => local.running.set(name, (local.running.get(name) ?? 1) - 1))
      )
    })
  )

// The engine's message for a deferred, as @effect/cluster's ClusterWorkflowEngine declares it (it does not export
// it): what the runner reads back must decode with its own declaration.
const ExitUnknown = Schema.Exit({ success: Schema.Unknown, failure: Schema.Unknown, defect: Schema.Defect })
const DeferredRpc = Rpc.make("deferred", { payload: { name: Schema.String, exit: ExitUnknown }, primaryKey: ({ name }) => name, success: ExitUnknown })
  .annotate(ClusterSchema.Persisted, true)
  .annotate(ClusterSchema.Uninterruptible, true)

/**
 * Completes the deferred `deferredName` of the run `executionId` of `agent`'s `workflow` with `exit`: through the
 * engine (`viaEngine`) where it delivers, stored for the agent's runner where the engine would wait for ever.
 */
export const deliver = (options: {
  readonly agent: string
  readonly workflow: Workflow.Any
  readonly executionId: string
  readonly deferredName: string
  readonly exit: Exit.Exit<unknown, unknown>
  readonly store: string
  readonly viaEngine: Effect.Effect<void, never, WorkflowEngine>
}): Effect.Effect<void, StoreUnavailable, WorkflowEngine> =>
  Effect.gen(function* () {
    const local = locals.get(yield* WorkflowEngine)
    if (local === undefined || (local.running.get(options.agent) ?? 0) > 0) return yield* options.viaEngine
    const entityId = EntityId.make(options.executionId)
    const shardId = local.sharding.getShardId(entityId, Context.get(options.workflow.annotations, ClusterSchema.ShardGroup)(entityId))
    if (!local.sharding.hasShardId(shardId)) return yield* options.viaEngine
    const envelope = Envelope.makeRequest<typeof DeferredRpc>({
      requestId: yield* local.sharding.getSnowflake,
      address: new EntityAddress({ entityType: EntityType.make(`Workflow/${options.workflow.name}`), entityId, shardId }),
      tag: "deferred",
      payload: DeferredRpc.payloadSchema.make({ name: options.deferredName, exit: options.exit }),
      headers: Headers.empty
    })
    // Stored once (its primary key is the deferred's name): deciding or cancelling again stores nothing more.
    yield* local.storage
      .saveRequest(new Message.OutgoingRequest({ envelope, context: Context.empty(), lastReceivedReply: Option.none(), rpc: DeferredRpc, respond: () => Effect.void }))
      .pipe(Effect.mapError((error) => new StoreUnavailable({ store: options.store, reason: error.message })))
  })
