import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { allPages, bounds, type Listed, offered, type Page } from "../src/internal/mcpListing.js"
import { logCapture } from "./support/mcp.js"

// A tool list page by page, and which of its tools are offered, on their own.

const tool = (name: string): Listed => ({ name, inputSchema: { type: "object" } })

/** Pages `count` long, each with one tool, linked by cursors "1", "2", …; the cursors asked for, in order. */
const chain = (count: number, empty = false) => {
  const asked: Array<string | undefined> = []
  const page = (cursor: string | undefined): Effect.Effect<Page<Listed>> =>
    Effect.sync(() => {
      asked.push(cursor)
      const at = Number(cursor ?? 0)
      return { tools: empty && at < count - 1 ? [] : [tool(`t${at}`)], ...(at + 1 < count ? { nextCursor: String(at + 1) } : {}) }
    })
  return { asked, page }
}

describe("allPages", () => {
  it.effect("reads from the first page (no cursor) to the one without a next cursor", () =>
    Effect.gen(function* () {
      const { asked, page } = chain(3)
      expect((yield* allPages("srv", page)).map((listed) => listed.name)).toEqual(["t0", "t1", "t2"])
      expect(asked).toEqual([undefined, "1", "2"])
    }))

  it.effect(`exactly ${bounds.pages} pages are listed; the bound is on a page after them`, () =>
    Effect.gen(function* () {
      expect(yield* Effect.map(allPages("srv", chain(bounds.pages).page), (tools) => tools.length)).toBe(bounds.pages)
      const refused = yield* Effect.flip(allPages("srv", chain(bounds.pages + 1).page))
      expect(refused._tag).toBe("ListingProblem")
      expect(refused.message).toBe(`srv's tool list goes on past ${bounds.pages} pages (${bounds.pages} tools so far): its listing is refused`)
    }))

  it.effect("a cursor sent twice is quoted, cut to 80 characters", () =>
    Effect.gen(function* () {
      const cursor = "c".repeat(200)
      const refused = yield* Effect.flip(allPages("srv", (at) => Effect.succeed<Page<Listed>>({ tools: [tool(at === undefined ? "first" : "again")], nextCursor: cursor })))
      expect(refused.message).toBe(`srv sent the page cursor "${"c".repeat(80)}" twice: its tool list never ends`)
    }))
})

describe("offered", () => {
  it.effect("names listed more than once are offered once, the warning naming each", () => {
    const log = logCapture()
    return Effect.gen(function* () {
      const listed = [tool("a"), tool("b"), tool("a"), tool("b"), tool("c")]
      expect((yield* offered("srv", listed, undefined, true)).map((listed) => listed.name)).toEqual(["a", "b", "c"])
      expect(log.lines).toEqual([`WARN: srv lists "a", "b" more than once; the first listing of each is offered`])
    }).pipe(Effect.provide(log.layer))
  })

  it.effect("on the first listing, names asked for that are not offered are refused, naming what is", () =>
    Effect.gen(function* () {
      const refused = yield* Effect.flip(offered("srv", [tool("a"), tool("b")], ["x", "a", "y"], true))
      expect(refused.message).toBe(`srv offers no tool "x", "y" (it offers: a, b)`)
      const none = yield* Effect.flip(offered("srv", [], ["x"], true))
      expect(none.message).toBe(`srv offers no tool "x" (it offers: none)`)
    }))

  it.effect("later, the others are offered, in the server's order, with a warning naming those gone; none when none is", () => {
    const log = logCapture()
    return Effect.gen(function* () {
      const later = yield* offered("srv", [tool("c"), tool("b"), tool("a")], ["a", "x", "c", "y"], false)
      expect(later.map((listed) => listed.name)).toEqual(["c", "a"])
      expect(log.lines).toEqual([`WARN: srv no longer offers "x", "y"; its other listed tools are still offered`])
      yield* offered("srv", [tool("a")], ["a"], false)
      expect(log.lines).toHaveLength(1)
    }).pipe(Effect.provide(log.layer))
  })
})
