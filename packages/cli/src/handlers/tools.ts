/** `agentfx tools`: the built-in tools, as text or (--json) as data. */
import * as Effect from "effect/Effect"
import * as Builtins from "../Builtins.js"
import type { Handler } from "../commands/Command.js"
import * as CatalogueText from "../internal/catalogueText.js"
import { Io } from "../Io.js"

export const handler: Handler = ({ options }) => Effect.flatMap(Io, (io) => io.out(CatalogueText.render(Builtins.catalogue, options.has("json"))))
