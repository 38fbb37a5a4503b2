/**
 * @agentfx/durable — durable agent runs on @effect/workflow and @effect/cluster: every model attempt and tool call
 * a recorded step, approvals that park the run, SQLite for one process and PostgreSQL for several.
 *
 * @since 0.3.0
 */
export * as DurableAgent from "./DurableAgent.js"
export * as DurableError from "./DurableError.js"
export * as RunEvent from "./RunEvent.js"
export * as RunStatus from "./RunStatus.js"
export * as RunStore from "./RunStore.js"
