/**
 * What the model is told about a tool: name, description and the JSON Schema of its parameters (standard JSON
 * Schema, no `$schema` key; providers compile it to their dialect with `Dialect`).
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { JsonObject } from "./Json.js"

/**
 * The schema of a declaration, as sent with every request.
 *
 * @since 0.1.0
 */
export const FunctionDeclaration = Schema.Struct({
  name: Schema.String,
  description: Schema.String,
  parameters: JsonObject,
  /**
   * Live sessions only: `nonBlocking` lets the model keep talking while the call runs (Gemini Live
   * `behavior: NON_BLOCKING`); absent means blocking. REST providers leave it out.
   */
  behavior: Schema.optional(Schema.Literal("blocking", "nonBlocking"))
})

/**
 * What the model is told about one tool (built by `Tool.make` from its parameters Schema).
 *
 * @example
 * ```ts
 * import type { FunctionDeclaration } from "@agentfx/core"
 *
 * const declaration: FunctionDeclaration.FunctionDeclaration = {
 *   name: "get_weather",
 *   description: "Current weather in a city",
 *   parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] }
 * }
 * ```
 *
 * @since 0.1.0
 * @category models
 */
export interface FunctionDeclaration extends Schema.Schema.Type<typeof FunctionDeclaration> {}
