/**
 * Whether an MCP tool asks before each call, from the annotations its server gives it, by the rule the built-in tools
 * follow: `read_file` and `list_dir` (read-only, confined) run without asking, `fetch_url` (read-only, but reaching
 * the world outside) asks. So a tool asks unless its server marks it non-destructive — read-only, or only adding
 * things (`destructiveHint: false`) — and closed-world (`openWorldHint: false`). The MCP spec's defaults, for a hint
 * not given, are the cautious ones (`readOnlyHint` false, `destructiveHint` true, `openWorldHint` true): a tool
 * without annotations asks. Annotations are the server's word, not a guarantee; they can only make a tool ask less
 * for a server the user chose to start.
 */

/** The hints this rule reads (`ToolAnnotations` of the MCP spec; other fields are ignored). */
export interface Hints {
  readonly readOnlyHint?: boolean | undefined
  readonly destructiveHint?: boolean | undefined
  readonly openWorldHint?: boolean | undefined
}

/** Why a tool with these annotations asks before each call, as the end of a sentence; `undefined` when it does not. */
export const askReason = (annotations: Hints | undefined): string | undefined => {
  const readOnly = annotations?.readOnlyHint === true
  const reasons: Array<string> = []
  if (!readOnly && annotations?.destructiveHint !== false) {
    reasons.push(annotations?.destructiveHint === true ? "its server marks it destructive" : "its server does not mark it read-only or non-destructive")
  }
  if (annotations?.openWorldHint !== false) {
    reasons.push(annotations?.openWorldHint === true ? "its server marks it as reaching outside (open world)" : "its server does not mark it closed-world")
  }
  return reasons.length === 0 ? undefined : reasons.join("; ")
}
