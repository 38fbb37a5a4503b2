import * as HttpUrl from "@agentfx/core/HttpUrl"
import * as Config from "effect/Config"
import * as ConfigError from "effect/ConfigError"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { baseUrlProblem } from "./endpoint.js"

const nonEmptyKey = (name: string): Config.Config<Redacted.Redacted<string>> =>
  Config.redacted(name).pipe(Config.validate({ message: "is empty", validation: (key) => Redacted.value(key).trim().length > 0 }))

/** The first of the named variables that is set and not empty, as a redacted key. */
export const apiKey = (first: string, ...rest: ReadonlyArray<string>): Config.Config<Redacted.Redacted<string>> =>
  rest.reduce((config, name) => Config.orElse(config, () => nonEmptyKey(name)), nonEmptyKey(first))

/** An optional string variable (`undefined` when unset). */
export const optionalString = (name: string): Config.Config<string | undefined> =>
  Config.map(Config.option(Config.string(name)), Option.getOrUndefined)

/**
 * An optional base URL variable: when set, it must be an http(s) URL without a user name or password, checked when
 * the layer is built (a blank one counts as unset, as the CLI reads it). The problem names the variable, never its value.
 */
export const optionalBaseUrl = (name: string): Config.Config<string | undefined> =>
  Config.mapOrFail(Config.map(optionalString(name), (url) => (url === undefined || url.trim() === "" ? undefined : url.trim())), (url) => {
    if (url === undefined || baseUrlProblem(url) === undefined) return Either.right(url)
    const problem = HttpUrl.isHttp(url) ? `${name} cannot hold a user name or password: fetch refuses such a URL` : `${name} must be an http:// or https:// URL`
    return Either.left(ConfigError.InvalidData([], problem))
  })

/** The fields of `value` that are not `undefined`, so spreading them does not erase defaults. */
export const definedOnly = <A extends object>(value: A): Partial<A> =>
  Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<A>
