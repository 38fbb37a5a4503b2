/**
 * What the model is told about a tool: name, description and the JSON Schema of its parameters (standard JSON
 * Schema, no `$schema` key; providers compile it to their dialect with `Dialect`).
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { JsonObject } from "./Json.js"

export const FunctionDeclaration = Schema.Struct({
  name: Schema.String,
  description: Schema.String,
  parameters: JsonObject
})

export interface FunctionDeclaration extends Schema.Schema.Type<typeof FunctionDeclaration> {}
