import type * as Argv from "../Argv.js"
import * as options from "./options.js"

export const spec: Argv.Spec = {
  name: "tools",
  summary: "the built-in tools and their parameter schemas",
  description: ["Lists the built-in tools the model can call, with their descriptions, when each is offered, and its parameters' JSON Schema."],
  args: [],
  options: [options.json("the list (name, description, parameters, availability)")]
}

