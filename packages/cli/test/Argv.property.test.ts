/**
 * The argument parser against a model of the grammar, over generated command lines of `agentfx run`: a line is built
 * from what it means (flags, options with their values, written `--name VALUE` or `--name=VALUE`, an alias, words of
 * the prompt, a `--` after which every word is the prompt's, even one that starts with -), and the parser must read
 * back exactly that meaning. The same lines with one thing wrong (an unknown option before `--`, an option given
 * twice, a value missing at the end) are refused, with the message naming it.
 */
import { Argv, Cli } from "@agentfx/cli"
import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"

type Item =
  | { readonly kind: "flag"; readonly name: string; readonly alias?: string }
  | { readonly kind: "option"; readonly name: string; readonly value: string; readonly inline: boolean }
  | { readonly kind: "word"; readonly word: string }

/** A word of the prompt before `--`: it must not look like an option. */
const plainWord = fc.stringMatching(/^[a-z0-9][a-z0-9 .?+*]{0,8}$/)
/** After `--`, anything is the prompt's: a word that starts with -, or is -- itself. */
const anyWord = fc.oneof(plainWord, fc.stringMatching(/^-{1,2}[a-z0-9-=]{0,8}$/), fc.constant("--"), fc.constant("-"))

const flags = fc.constantFrom<Item>({ kind: "flag", name: "json" }, { kind: "flag", name: "yes", alias: "y" }, { kind: "flag", name: "yes" }, { kind: "flag", name: "verbose" })

/** Options with a value each accepts; a free-text value may start with a dash (it follows its option). */
const optionValues: ReadonlyArray<readonly [string, fc.Arbitrary<string>]> = [
  ["max-turns", fc.integer({ min: 1, max: 99 }).map(String)],
  ["concurrency", fc.integer({ min: 1, max: 99 }).map(String)],
  ["temperature", fc.constantFrom("0", "0.5", "1", "2")],
  ["first-byte-timeout", fc.constantFrom("30s", "500ms", "2m", "1.5s")],
  ["model", fc.oneof(plainWord, fc.stringMatching(/^-[a-z]{1,6}$/))],
  ["system", fc.oneof(plainWord, fc.constant("--json"), fc.constant(""))],
  ["log-level", fc.constantFrom(...Argv.logLevels)]
]
const option = fc.constantFrom(...optionValues).chain(([name, value]) =>
  fc.record({ kind: fc.constant("option" as const), name: fc.constant(name), value, inline: fc.boolean() })
)
/** `--allow-host` is repeatable: each value is kept, in order. */
const host = fc.record({ kind: fc.constant("option" as const), name: fc.constant("allow-host"), value: fc.constantFrom("example.com", "*.example.com", "127.0.0.1:8080"), inline: fc.boolean() })

/** A meaningful line: options (each single one at most once), words before `--`, and maybe `--` and words after it. */
const line = fc
  .record({
    before: fc.array(fc.oneof(flags, option, host, plainWord.map((word): Item => ({ kind: "word", word }))), { maxLength: 10 }),
    after: fc.option(fc.array(anyWord, { maxLength: 4 }), { nil: undefined })
  })
  .filter(({ before, after }) => {
    const single = before.filter((item) => item.kind === "option" && item.name !== "allow-host").map((item) => (item as { name: string }).name)
    const words = before.filter((item) => item.kind === "word").length + (after?.length ?? 0)
    return new Set(single).size === single.length && words > 0
  })

const render = (before: ReadonlyArray<Item>, after: ReadonlyArray<string> | undefined): Array<string> => [
  "run",
  ...before.flatMap((item) => {
    switch (item.kind) {
      case "flag":
        return [item.alias === undefined ? `--${item.name}` : `-${item.alias}`]
      case "option":
        return item.inline ? [`--${item.name}=${item.value}`] : [`--${item.name}`, item.value]
      case "word":
        return [item.word]
    }
  }),
  ...(after === undefined ? [] : ["--", ...after])
]

describe("Argv, property-based: generated command lines of agentfx run against a model of the grammar", () => {
  it.prop("a line reads back as what it was built from: every flag, every option's values in order, the prompt's words in order", [line], ([{ before, after }]) => {
    const parsed = Argv.parse(Cli.commands, render(before, after))
    expect(parsed._tag).toBe("Run")
    if (parsed._tag !== "Run") return
    expect(parsed.args).toEqual([...before.flatMap((item) => (item.kind === "word" ? [item.word] : [])), ...(after ?? [])])
    expect(parsed.verbose).toBe(before.some((item) => item.kind === "flag" && item.name === "verbose"))
    for (const name of ["json", "yes"]) expect(parsed.options.has(name), name).toBe(before.some((item) => item.kind === "flag" && item.name === name))
    for (const name of [...optionValues.map(([name]) => name), "allow-host"]) {
      const given = before.flatMap((item) => (item.kind === "option" && item.name === name ? [item.value] : []))
      expect(parsed.options.list(name), name).toEqual(given)
    }
  })

  it.prop(
    "an unknown option before -- is refused, named; after -- it is a word of the prompt",
    [line, fc.stringMatching(/^[a-z]{2,8}$/).filter((name) => !Cli.commands.find((spec) => spec.name === "run")!.options.some((known) => known.name === name) && !["verbose", "log-level", "help"].includes(name)), fc.nat()],
    ([{ before, after }, unknown, at]) => {
      const position = at % (before.length + 1)
      const refused = Argv.parse(Cli.commands, render([...before.slice(0, position), { kind: "word", word: `--${unknown}` }, ...before.slice(position)], after))
      expect(refused._tag === "Invalid" && refused.message.startsWith(`unknown option --${unknown} for agentfx run`)).toBe(true)
      const accepted = Argv.parse(Cli.commands, render(before, [...(after ?? []), `--${unknown}`]))
      expect(accepted._tag === "Run" && accepted.args.at(-1)).toBe(`--${unknown}`)
    }
  )

  it.prop(
    "an option that is not repeatable, given twice, is refused naming both values; given last with no value, refused naming what it needs",
    [line, fc.constantFrom(...optionValues).chain(([name, value]) => fc.tuple(fc.constant(name), value, value))],
    ([{ before }, [name, first, second]]) => {
      const others = before.filter((item) => !(item.kind === "option" && item.name === name))
      const twice = Argv.parse(Cli.commands, [...render(others, undefined), `--${name}`, first, `--${name}=${second}`, "--", "hi"])
      expect(twice._tag === "Invalid" ? twice.message : twice._tag).toBe(`--${name} is given twice (${first} and ${second}); give it once`)
      const last = Argv.parse(Cli.commands, [...render(others, undefined), "hi", `--${name}`])
      const placeholder = [...Cli.commands.find((spec) => spec.name === "run")!.options, ...Argv.globalOptions].find((known) => known.name === name)!.value!
      expect(last._tag === "Invalid" ? last.message : last._tag).toBe(`--${name} needs a value: --${name} ${placeholder}`)
    }
  )
})
