/**
 * An MCP server's tool list as it comes, page after page (`tools/list` with a cursor), and which of the tools listed
 * are offered. A server decides how many pages there are: a listing that would never end, or end only after more than
 * anyone could use, is refused with a `ListingProblem` that says which bound it met, rather than cut short or waited on.
 */
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import type { Hints } from "./mcpApproval.js"

/** Why a listing is refused, as a sentence naming the server. */
export class ListingProblem extends Data.TaggedError("ListingProblem")<{ readonly message: string }> {}

/** A tool as a listing gives it. */
export interface Listed {
  readonly name: string
  readonly description?: string | undefined
  readonly inputSchema: unknown
  /** What the server says of the tool's effects (read-only, destructive, open world): see `mcpApproval`. */
  readonly annotations?: Hints | undefined
}

/** One page of a listing: its tools, and the cursor of the next page unless it is the last. */
export interface Page<T extends Listed> {
  readonly tools: ReadonlyArray<T>
  readonly nextCursor?: string | undefined
}

/**
 * How far a listing may go. Each page is timed, but only a bound on the pages ends a listing whose server always has
 * another one. `tools`: no provider takes more than a few hundred declarations, so 10,000 is a broken server, not a big
 * one (it was the old silent cut). `pages`: 1,000, room for those 10,000 tools at 10 to a page, where servers send 50
 * or more. `emptyRun`: a server that sends empty pages with ever new cursors (an offset it never checks against its
 * end) would meet the page bound only after 1,000 round trips; 100 empty pages in a row say the same sooner, while
 * a server that filters its tools page by page (some pages empty) gets far more room than it needs.
 */
export const bounds = { tools: 10_000, pages: 1_000, emptyRun: 100 } as const

/**
 * Every page of `server`'s tool list, from the first: `page` fetches the page at a cursor (the first without one). A
 * cursor sent twice, or a listing past `bounds`, is a `ListingProblem`.
 */
export const allPages = <T extends Listed, E>(
  server: string,
  page: (cursor: string | undefined) => Effect.Effect<Page<T>, E>
): Effect.Effect<ReadonlyArray<T>, E | ListingProblem> =>
  Effect.gen(function* () {
    const tools: Array<T> = []
    const cursors = new Set<string>()
    let pages = 0
    let emptyRun = 0
    let cursor: string | undefined
    /** Why the listing cannot go on after the page just read, if it cannot. */
    const problem = (): string | undefined => {
      if (tools.length > bounds.tools) {
        return `${server} lists more than ${bounds.tools} tools (${tools.length} in ${pages} pages): more than any model can be offered; its listing is refused`
      }
      if (cursor === undefined) return undefined
      if (cursors.has(cursor)) return `${server} sent the page cursor ${JSON.stringify(cursor.slice(0, 80))} twice: its tool list never ends`
      if (emptyRun >= bounds.emptyRun) return `${server} sent ${bounds.emptyRun} empty pages of tools in a row, each with a new cursor: its tool list never ends`
      if (pages >= bounds.pages) return `${server}'s tool list goes on past ${bounds.pages} pages (${tools.length} tools so far): its listing is refused`
      return undefined
    }
    do {
      const next = yield* page(cursor)
      pages++
      // One at a time: a page of a few hundred thousand tools would overflow the stack as the arguments of one push.
      for (const tool of next.tools) tools.push(tool)
      cursor = next.nextCursor
      // Stryker disable next-line ConditionalExpression: a last page (no cursor) ends the listing whatever the run
      emptyRun = next.tools.length === 0 && cursor !== undefined ? emptyRun + 1 : 0
      const refused = problem()
      if (refused !== undefined) return yield* Effect.fail(new ListingProblem({ message: refused }))
      // Stryker disable next-line ConditionalExpression: without a cursor the loop ends here, so nothing reads the set
      if (cursor !== undefined) cursors.add(cursor)
    } while (cursor !== undefined)
    return tools
  })

/**
 * The tools of `listed` that are offered: each name once, as first listed, and with `only` those of them it names, in
 * the server's order. On the `first` listing a name in `only` the server does not offer is a `ListingProblem`; later
 * (the server changed its list) the others are offered, with a warning.
 */
export const offered = <T extends Listed>(
  server: string,
  listed: ReadonlyArray<T>,
  only: ReadonlyArray<string> | undefined,
  first: boolean
): Effect.Effect<ReadonlyArray<T>, ListingProblem> =>
  Effect.gen(function* () {
    // A name listed twice (a page repeated, a proxy merging servers) is offered once, as first listed, rather than
    // failing the server: a call names only the tool, so the server runs one tool by that name whatever it listed,
    // and failing would take away every other tool over a listing glitch the user may not be able to fix.
    const seen = new Set<string>()
    const repeated = new Set<string>()
    const once = listed.filter((tool) => (seen.has(tool.name) ? (repeated.add(tool.name), false) : (seen.add(tool.name), true)))
    if (repeated.size > 0) {
      yield* Effect.logWarning(`${server} lists ${[...repeated].map((n) => JSON.stringify(n)).join(", ")} more than once; the first listing of each is offered`)
    }
    if (only === undefined) return once
    const unknown = only.filter((wanted) => !seen.has(wanted))
    if (unknown.length > 0 && first) {
      return yield* Effect.fail(
        new ListingProblem({ message: `${server} offers no tool ${unknown.map((n) => JSON.stringify(n)).join(", ")} (it offers: ${[...seen].join(", ") || "none"})` })
      )
    }
    // Later, a server that dropped a listed tool still offers the others.
    if (unknown.length > 0) {
      yield* Effect.logWarning(`${server} no longer offers ${unknown.map((n) => JSON.stringify(n)).join(", ")}; its other listed tools are still offered`)
    }
    const wanted = new Set(only)
    return once.filter((tool) => wanted.has(tool.name))
  })
