import type { Json } from "@agentfx/core"

/**
 * An object schema whose `root` refers to the first of `levels` definitions, each using the next twice: about 100
 * bytes a level, which inlining would turn into 2^levels copies of the last (24 levels: 2.3 KB, gigabytes inlined).
 */
export const fanOut = (levels: number): Json.JsonObject => {
  const $defs: Record<string, unknown> = { [`L${levels}`]: { type: "string" } }
  for (let level = 0; level < levels; level++) {
    $defs[`L${level}`] = { type: "object", properties: { a: { $ref: `#/$defs/L${level + 1}` }, b: { $ref: `#/$defs/L${level + 1}` } } }
  }
  return { type: "object", properties: { root: { $ref: "#/$defs/L0" } }, $defs }
}

/** What a declaration that takes more than `Dialect.bounds.characters` once inlined is refused with. */
export const tooLarge = "with its references inlined the schema takes more than 2097152 characters of JSON (2 MiB), the most one declaration may take"
