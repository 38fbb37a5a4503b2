/**
 * MCP tools from a stdio server: `Mcp.registry` starts the server (here `node notesServer.mjs`, beside this file),
 * lists its tools with their own JSON Schemas and turns them into a registry the loop uses like any other; the
 * server is stopped when the scope closes. The model (scripted here) calls the server's tool twice, once for a
 * note that does not exist: the server's `isError` result goes back to the model as a tool error.
 *
 *   npx -y pnpm@10 example mcp
 */
import { Agent } from "@agentfx/core"
import { Scripted } from "@agentfx/core/testing"
import * as Mcp from "@agentfx/tools/mcp"
import { NodeRuntime } from "@effect/platform-node"
import { Console, Effect, Either } from "effect"
import { fileURLToPath } from "node:url"

const notesServer = fileURLToPath(new URL("notesServer.mjs", import.meta.url))

const program = Effect.gen(function* () {
  const registry = yield* Mcp.registry([Mcp.stdio(process.execPath, { args: [notesServer], name: "notes" })])
  for (const declaration of registry.declarations) yield* Console.log(`tool ${declaration.name}: ${declaration.description}`)

  const result = yield* Agent.run({ registry, prompt: "What do I need from the shop?" })
  for (const call of result.calls) {
    const outcome = Either.match(call.result, { onLeft: (error) => `error: ${error.message}`, onRight: (value) => JSON.stringify(value) })
    yield* Console.log(`call ${call.name}(${JSON.stringify(call.args)}) → ${outcome}`)
  }
  yield* Console.log(`answer: ${result.text}`)
}).pipe(Effect.scoped)

const model = Scripted.layer([
  { calls: [{ name: "read_note", args: { title: "shopping" } }] },
  { calls: [{ name: "read_note", args: { title: "groceries" } }] },
  { text: "Milk, eggs and rye bread." }
])

NodeRuntime.runMain(program.pipe(Effect.provide(model)))
