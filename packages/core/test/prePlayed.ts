/**
 * Properties whose cases run on a TestClock spend most of their time idle: each adjustment waits for the fibers to
 * settle on timers of the real event loop (a few milliseconds per sleep it wakes), so cases played one after
 * another leave the worker waiting. fast-check's runner, given a seed and a run count, generates the same inputs
 * for every property over the same arbitraries (its `sample` does not: it biases differently), so the inputs are
 * known before the first property runs. They are played several at a time, each on a TestClock of its own, the
 * first time a property asks for one; a property then reads its case back, and properties over the same
 * arbitraries share each played case. An input beyond them (fast-check shrinking a failure) is played when asked
 * for, and so is one whose pre-play failed: fast-check reports and shrinks it as its own.
 *
 * Playing must be deterministic and its result only read: one result serves every property that asks for it.
 */
import { Effect, FastCheck as fc, TestContext } from "effect"

export interface Options {
  /** The seed every property over these inputs runs with (give it to them as `fastCheck.seed`). */
  readonly seed: number
  readonly numRuns: number
  /** How many cases play at once (8 unless given). */
  readonly concurrency?: number
}

export interface PrePlayed<I extends ReadonlyArray<unknown>, A, E> {
  /** Registers the inputs a property over `arbitraries` will be given; call it once per such property. */
  readonly over: (...arbitraries: { [K in keyof I]: fc.Arbitrary<I[K]> }) => void
  /** The result of playing `input`: played now unless it already was. */
  readonly get: (input: I) => Effect.Effect<A, E>
  /**
   * How many inputs were played when asked for, not in advance. 0 once every property has passed: otherwise the
   * inputs fast-check gives no longer match the ones registered, and the time saved is lost without a word.
   */
  readonly late: () => number
}

/** A seed for a file's properties: `variable` in the environment replays a failure, else a random one. */
export const seedFrom = (variable: string): number => {
  const given = process.env[variable]
  return given !== undefined && given !== "" ? Number(given) : Math.floor(Math.random() * 2 ** 31)
}

export const make = <I extends ReadonlyArray<unknown>, A, E = never>(play: (input: I) => Effect.Effect<A, E>, options: Options): PrePlayed<I, A, E> => {
  const results = new Map<string, A>()
  const pending: Array<I> = []
  let late = 0
  const playOne = (input: I): Effect.Effect<A, E> =>
    Effect.suspend(() => {
      const key = JSON.stringify(input)
      if (results.has(key)) return Effect.succeed(results.get(key)!)
      return Effect.tap(play(input), (result) => Effect.sync(() => void results.set(key, result)))
    })
  return {
    over: (...arbitraries) => {
      const inputs: Array<I> = []
      const record = (...input: ReadonlyArray<unknown>) => void inputs.push(input as unknown as I)
      // The same call fast-check makes for `it.effect.prop(name, arbitraries, …, { fastCheck: { seed, numRuns } })`.
      fc.assert(fc.property(...(arbitraries as unknown as [fc.Arbitrary<unknown>]), record), { seed: options.seed, numRuns: options.numRuns })
      pending.push(...inputs)
    },
    get: (input) => {
      const each = (one: I) => playOne(one).pipe(Effect.provide(TestContext.TestContext), Effect.catchAllCause(() => Effect.void))
      const asked = Effect.suspend(() => {
        if (!results.has(JSON.stringify(input))) late++
        return playOne(input)
      })
      return Effect.suspend(() => {
        const batch = pending.splice(0)
        return batch.length === 0 ? asked : Effect.zipRight(Effect.forEach(batch, each, { concurrency: options.concurrency ?? 8, discard: true }), asked)
      })
    },
    late: () => late
  }
}
