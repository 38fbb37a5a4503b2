/**
 * Where a durable run stands: running, waiting for approval (with the calls that wait), finished (with its
 * `AgentResult`), failed (with its typed error) or cancelled.
 *
 * @since 0.3.0
 */
import type { Agent } from "@agentfx/core"
import type { Json } from "@agentfx/core"

/**
 * A call that waits for a decision.
 *
 * @since 0.3.0
 * @category models
 */
export interface PendingApproval {
  readonly callId: string
  readonly name: string
  readonly args: Json.JsonObject
  readonly description: string
  /** When the call is denied as timed out, in epoch milliseconds; null: it waits as long as it takes. */
  readonly deadline: number | null
}

/**
 * What every status says about its run.
 *
 * @since 0.3.0
 * @category models
 */
export interface Summary {
  readonly runId: string
  readonly agent: string
  /** Epoch milliseconds. */
  readonly createdAt: number
  readonly updatedAt: number
}

/**
 * A run's status.
 *
 * @since 0.3.0
 * @category models
 */
export type RunStatus =
  | (Summary & { readonly _tag: "Running" })
  | (Summary & { readonly _tag: "Waiting"; readonly pending: ReadonlyArray<PendingApproval> })
  | (Summary & { readonly _tag: "Finished"; readonly result: Agent.AgentResult })
  | (Summary & { readonly _tag: "Failed"; readonly error: Agent.AgentError })
  | (Summary & { readonly _tag: "Cancelled" })

/**
 * A run as `list` shows it: its summary and its state's tag.
 *
 * @since 0.3.0
 * @category models
 */
export interface Listed extends Summary {
  readonly state: RunStatus["_tag"]
}
