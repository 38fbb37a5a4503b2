import * as Config from "effect/Config"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"

const nonEmptyKey = (name: string): Config.Config<Redacted.Redacted<string>> =>
  Config.redacted(name).pipe(Config.validate({ message: "is empty", validation: (key) => Redacted.value(key).trim().length > 0 }))

/** The first of the named variables that is set and not empty, as a redacted key. */
export const apiKey = (first: string, ...rest: ReadonlyArray<string>): Config.Config<Redacted.Redacted<string>> =>
  rest.reduce((config, name) => Config.orElse(config, () => nonEmptyKey(name)), nonEmptyKey(first))

/** An optional string variable (`undefined` when unset). */
export const optionalString = (name: string): Config.Config<string | undefined> =>
  Config.map(Config.option(Config.string(name)), Option.getOrUndefined)

/** The fields of `value` that are not `undefined`, so spreading them does not erase defaults. */
export const definedOnly = <A extends object>(value: A): Partial<A> =>
  Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<A>
