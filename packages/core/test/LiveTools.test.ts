import { describe as group, expect, it } from "@effect/vitest"
import { Effect, Exit, Logger, Scope } from "effect"
import type { FunctionDeclaration } from "../src/FunctionDeclaration.js"
import type { Change, Resumable } from "../src/internal/live/tools.js"
import { changeOf, describe, Tools } from "../src/internal/live/tools.js"
import { Registry } from "../src/index.js"
import { echo, fakeSource } from "./fixtures.js"

const tool = (name: string, description = `${name} things`): FunctionDeclaration => ({ name, description, parameters: { type: "object" } })

group("how a live session's tools changed", () => {
  it("the same declarations, in any order, are no change", () => {
    expect(changeOf([tool("a"), tool("b")], [tool("b"), tool("a")])).toBeUndefined()
    expect(changeOf([], [])).toBeUndefined()
  })

  it("names added, removed and declared differently, each in the order of the list that names it", () => {
    expect(changeOf([tool("a"), tool("b"), tool("c"), tool("d")], [tool("e"), tool("d", "other"), tool("a"), tool("f"), tool("c", "new")])).toEqual({
      added: ["e", "f"],
      removed: ["b"],
      changed: ["d", "c"]
    })
  })

  it("any one kind of change alone is a change", () => {
    expect(changeOf([tool("a")], [tool("a"), tool("b")])).toEqual({ added: ["b"], removed: [], changed: [] })
    expect(changeOf([tool("a"), tool("b")], [tool("a")])).toEqual({ added: [], removed: ["b"], changed: [] })
    expect(changeOf([tool("a")], [tool("a", "else")])).toEqual({ added: [], removed: [], changed: ["a"] })
    expect(changeOf([tool("a")], [tool("b")])).toEqual({ added: ["b"], removed: ["a"], changed: [] })
  })

  it("a change is described by its non-empty parts, joined", () => {
    expect(describe({ added: ["a", "b"], removed: ["c"], changed: ["d", "e"] })).toBe("added a, b; removed c; changed d, e")
    expect(describe({ added: [], removed: ["c", "f"], changed: [] })).toBe("removed c, f")
    expect(describe({ added: ["a"], removed: [], changed: ["d"] })).toBe("added a; changed d")
    expect(describe({ added: [], removed: [], changed: [] })).toBe("")
  })
})

/** Tools following a fake source, driven by hand: the test says whether a handle is fresh, and which turn it is. */
const following = Effect.gen(function* () {
  const fake = fakeSource()
  const state: { resumable: Resumable; turn: number; scope: Scope.CloseableScope } = { resumable: "fresh", turn: 1, scope: yield* Scope.make() }
  const redeclared: Array<Change> = []
  const warnings: Array<unknown> = []
  const tools = new Tools(fake.registry, {
    quiet: () => true,
    resumable: () => state.resumable,
    turn: () => state.turn,
    redeclare: (change) => Effect.sync(() => void redeclared.push(change)),
    get scope() {
      return state.scope
    }
  })
  const names = () => tools.current.declarations.map((declaration) => declaration.name)
  return { fake, state, tools, redeclared, warnings, names }
})

const withWarnings = <A, E, R>(warnings: Array<unknown>, effect: Effect.Effect<A, E, R>) =>
  effect.pipe(Effect.provide(Logger.replace(Logger.defaultLogger, Logger.make(({ message }) => void warnings.push(message)))))

/** Lets a listing forked by `check` run to its end. */
const listed = Effect.repeatN(Effect.yieldNow(), 10)

group("the tools of a live session that follows its source", () => {
  it.effect("a source unmoved since the registry was read is not listed, even when its version is not 0", () =>
    Effect.gen(function* () {
      const { fake, tools } = yield* following
      yield* fake.set(echo("first"))
      yield* fake.set(echo("first"))
      const again = new Tools(Registry.dynamic(Registry.unsafeMake(echo("first")), fake.source), { ...fakeHooks, scope: yield* Scope.make() })
      yield* again.check()
      yield* listed
      expect(fake.state.listed).toBe(0)
      expect(tools.current).toBe(fake.registry)
    }))

  it.effect("the version a dynamic registry was read at counts, not the source's version now", () =>
    Effect.gen(function* () {
      const { fake, redeclared } = yield* following
      yield* fake.set(echo("first"))
      const at1 = Registry.dynamic(Registry.unsafeMake(echo("first")), fake.source, 1)
      yield* fake.set(echo("first"), echo("second"))
      const tools = new Tools(at1, { ...fakeHooks, redeclare: (change) => Effect.sync(() => void redeclared.push(change)), scope: yield* Scope.make() })
      yield* tools.settled
      expect(fake.state.listed).toBe(1)
      expect(redeclared).toEqual([{ added: ["second"], removed: [], changed: [] }])
    }))

  it.effect("without a handle, a check after a turn keeps quiet; the check before a message warns, once", () =>
    Effect.gen(function* () {
      const { fake, state, tools, warnings, names } = yield* following
      state.resumable = "none"
      yield* fake.set(echo("first"), echo("second"))
      yield* withWarnings(warnings, Effect.zipRight(tools.check(), listed))
      yield* withWarnings(warnings, tools.check())
      expect(fake.state.listed).toBe(1)
      expect(warnings).toEqual([])
      yield* withWarnings(warnings, tools.settled)
      yield* withWarnings(warnings, tools.settled)
      expect(warnings).toHaveLength(1)
      expect(String(warnings[0])).toContain("the tools changed (added second), but the server has not given a resumption handle yet")
      expect(names()).toEqual(["first"])
    }))

  it.effect("a listing started after a turn and still running is waited for before a message, which then warns", () =>
    Effect.gen(function* () {
      const { fake, state, tools, warnings } = yield* following
      state.resumable = "none"
      yield* fake.set(echo("first"), echo("second"))
      yield* withWarnings(warnings, Effect.zipRight(tools.check(), tools.settled))
      expect(fake.state.listed).toBe(1)
      expect(warnings).toHaveLength(1)
    }))

  it.effect("after the tools were declared, a later change without a handle is warned about again", () =>
    Effect.gen(function* () {
      const { fake, state, tools, warnings, redeclared } = yield* following
      state.resumable = "none"
      yield* fake.set(echo("first"), echo("second"))
      yield* withWarnings(warnings, tools.settled)
      state.resumable = "fresh"
      yield* withWarnings(warnings, tools.settled)
      expect(redeclared).toEqual([{ added: ["second"], removed: [], changed: [] }])
      state.resumable = "none"
      yield* fake.set(echo("first"))
      yield* withWarnings(warnings, tools.settled)
      expect(warnings).toHaveLength(2)
      expect(String(warnings[1])).toContain("the tools changed (removed second)")
    }))

  it.effect("with a stale handle a change waits; a further change of the source is listed again before it is declared", () =>
    Effect.gen(function* () {
      const { fake, state, tools, redeclared, names } = yield* following
      state.resumable = "stale"
      yield* fake.set(echo("first"), echo("second"))
      yield* tools.settled
      expect(yield* Effect.exit(tools.check())).toEqual(Exit.void)
      expect(redeclared).toEqual([])
      yield* fake.set(echo("first"), echo("third"))
      state.resumable = "fresh"
      yield* tools.settled
      expect(fake.state.listed).toBe(2)
      expect(redeclared).toEqual([{ added: ["third"], removed: [], changed: [] }])
      expect(names()).toEqual(["first", "third"])
    }))

  it.effect("a refusal after the new tools were confirmed, or before any change, changes nothing", () =>
    Effect.gen(function* () {
      const { fake, tools, names } = yield* following
      expect(yield* tools.refused("bad schema")).toBeUndefined()
      yield* fake.set(echo("first"), echo("second"))
      yield* tools.settled
      tools.confirm()
      expect(yield* tools.refused("bad schema")).toBeUndefined()
      expect(names()).toEqual(["first", "second"])
    }))

  it.effect("a listing interrupted with its scope is started again at the next quiet moment", () =>
    Effect.gen(function* () {
      const { fake, state, tools, redeclared } = yield* following
      const source = fake.source
      let hang = true
      const hanging = new Tools(
        Registry.dynamic(fake.registry, { version: source.version, current: Effect.suspend(() => (hang ? Effect.zipRight(source.current, Effect.never) : source.current)) }),
        {
          ...fakeHooks,
          redeclare: (change) => Effect.sync(() => void redeclared.push(change)),
          get scope() {
            return state.scope
          }
        }
      )
      yield* fake.set(echo("first"), echo("second"))
      yield* Effect.zipRight(hanging.check(), listed)
      expect(fake.state.listed).toBe(1)
      yield* Scope.close(state.scope, Exit.void)
      state.scope = yield* Scope.make()
      hang = false
      yield* hanging.settled
      expect(fake.state.listed).toBe(2)
      expect(redeclared).toEqual([{ added: ["second"], removed: [], changed: [] }])
      expect(tools.current).toBe(fake.registry)
    }))
})

const fakeHooks = { quiet: () => true, resumable: (): Resumable => "fresh", turn: () => 1, redeclare: () => Effect.void }
