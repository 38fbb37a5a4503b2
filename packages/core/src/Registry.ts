/**
 * Tools by name. A registry knows its declarations and is what the executor dispatches on.
 *
 * @example
 * ```ts
 * import { Registry, Tool } from "@agentfx/core"
 * import { Effect, Schema } from "effect"
 *
 * const getWeather = Tool.make("get_weather", {
 *   description: "Current temperature of a city in °C",
 *   parameters: Schema.Struct({ city: Schema.String }),
 *   handler: ({ city }) => Effect.succeed({ celsius: city === "Oslo" ? 7 : 20 })
 * })
 *
 * const program = Effect.gen(function* () {
 *   const registry = yield* Registry.make(getWeather) // DuplicateToolName if two tools share a name
 *   const quick = yield* Registry.fromFunctions({ add: ({ a, b }) => Number(a) + Number(b) })
 *   return [registry.names, quick.names] // [["get_weather"], ["add"]]
 * })
 * ```
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import type { FunctionDeclaration } from "./FunctionDeclaration.js"
import * as Tool from "./Tool.js"

/**
 * Two tools with one name.
 *
 * @since 0.1.0
 * @category errors
 */
export class DuplicateToolName extends Schema.TaggedError<DuplicateToolName>()("DuplicateToolName", {
  name: Schema.String
}) {
  override get message(): string {
    return `two tools are named "${this.name}"`
  }
}

/**
 * A set of tools whose handlers require `R`.
 *
 * @since 0.1.0
 * @category models
 */
export interface Registry<out R = never> {
  readonly tools: ReadonlyMap<string, Tool.Tool<R>>
  /** Tool names, in registration order. */
  readonly names: ReadonlyArray<string>
  /** Declarations, in registration order. */
  readonly declarations: ReadonlyArray<FunctionDeclaration>
  /**
   * Where the tools come from when they may change while the registry is in use (an MCP server that announces a
   * new tool list). The loop asks it before every model turn, a live session at each turn boundary; a registry
   * without one is static and costs nothing.
   */
  readonly source?: Source<R> | undefined
  /** The source's version these tools were read at: a run starting later asks the source again if it moved since. */
  readonly sourceVersion?: number | undefined
}

/**
 * Tools that may change: a version to check cheaply, and the tools as they are now.
 *
 * @since 0.1.0
 * @category models
 */
export interface Source<out R = never> {
  /** A number that changes whenever `current` would give other tools; read before every model turn, so keep it cheap. */
  readonly version: () => number
  /**
   * The tools as they are now (the returned registry's own `source` is not consulted). A source that cannot refresh
   * fails: the loop logs a warning, keeps the tools it has and asks again before the next turn (calls to tools that
   * went away meanwhile fail one by one, where the model sees them).
   */
  readonly current: Effect.Effect<Registry<R>, unknown>
}

const build = <R>(tools: ReadonlyArray<Tool.Tool<R>>): Either.Either<Registry<R>, DuplicateToolName> => {
  const byName = new Map<string, Tool.Tool<R>>()
  for (const tool of tools) {
    if (byName.has(tool.name)) return Either.left(new DuplicateToolName({ name: tool.name }))
    byName.set(tool.name, tool)
  }
  return Either.right({ tools: byName, names: [...byName.keys()], declarations: tools.map((tool) => tool.declaration) })
}

/**
 * A registry of the given tools; a repeated name is `DuplicateToolName`.
 *
 * @since 0.1.0
 */
export const make = <const Tools extends ReadonlyArray<Tool.Any>>(
  ...tools: Tools
): Effect.Effect<Registry<Tool.Context<Tools[number]>>, DuplicateToolName> => build(tools)

/**
 * `make` for module-level constants: throws `DuplicateToolName`.
 *
 * @since 0.1.0
 */
export const unsafeMake = <const Tools extends ReadonlyArray<Tool.Any>>(
  ...tools: Tools
): Registry<Tool.Context<Tools[number]>> => Either.getOrThrowWith(build(tools), (error) => error)

/**
 * A registry whose tools `source` keeps current: `initial`, read at the source's version `at`, until the source's
 * version moves from `at`. Read the version before reading `initial`, so that a change announced meanwhile is not
 * missed. `merge` and `restrict` give static registries.
 *
 * @example
 * ```ts
 * import { Registry } from "@agentfx/core"
 * import { Effect } from "effect"
 *
 * // A tool source whose list can change (MCP servers are one): a version counter, and the current registry.
 * let version = 0
 * const source: Registry.Source<never> = { version: () => version, current: Effect.succeed(Registry.empty) }
 *
 * const program = Effect.gen(function* () {
 *   const at = source.version()
 *   return Registry.dynamic(yield* source.current, source, at) // listed again before a turn once `version` moves
 * })
 * ```
 *
 * @since 0.1.0
 */
export const dynamic = <R>(initial: Registry<R>, source: Source<R>, at: number = source.version()): Registry<R> => ({
  tools: initial.tools,
  names: initial.names,
  declarations: initial.declarations,
  source,
  sourceVersion: at
})

/**
 * The empty registry: a model given it can call nothing.
 *
 * @since 0.1.0
 */
export const empty: Registry = { tools: new Map(), names: [], declarations: [] }

/**
 * A registry from plain functions keyed by name (arguments untyped). Each value is a function of the
 * arguments, sync or async, or a `Tool.FunctionSpec` with a description and a JSON Schema.
 *
 * @since 0.1.0
 */
export const fromFunctions = (
  functions: Readonly<Record<string, Tool.FunctionSpec | Tool.FunctionSpec["run"]>>
): Effect.Effect<Registry, Tool.InvalidToolDefinition> =>
  Effect.flatMap(
    Effect.forEach(Object.entries(functions), ([name, spec]) => Tool.fromFunction(name, spec)),
    (tools) => Effect.orDie(build(tools))
  )

/**
 * Both registries' tools; a name in both is `DuplicateToolName`.
 *
 * @since 0.1.0
 */
export const merge = <R1, R2>(
  self: Registry<R1>,
  that: Registry<R2>
): Either.Either<Registry<R1 | R2>, DuplicateToolName> =>
  build<R1 | R2>([...self.tools.values(), ...that.tools.values()])

/**
 * Only the named tools, in the given order (names it does not have are left out).
 *
 * @since 0.1.0
 */
export const restrict = <R>(self: Registry<R>, names: Iterable<string>): Registry<R> =>
  Either.getOrThrowWith(
    build([...new Set(names)].flatMap((name) => {
      const tool = self.tools.get(name)
      return tool === undefined ? [] : [tool]
    })),
    // Stryker disable next-line ArrowFunction: distinct names pick distinct tools of a registry, so build never fails here
    (error) => error
  )
