/**
 * Shell completion scripts, written by @effect/cli from a command tree built from our specs: the same commands,
 * options, choices and file/directory arguments that `Argv` reads. Loaded only for `agentfx --completions SHELL`.
 */
import { Args, Command, Options } from "@effect/cli"
import * as Effect from "effect/Effect"
import type * as Argv from "../Argv.js"

const option = (spec: Argv.OptionSpec): Options.Options<unknown> => {
  const base: Options.Options<unknown> =
    spec.value === undefined
      ? Options.boolean(spec.name)
      : spec.choices !== undefined
        ? Options.choice(spec.name, spec.choices)
        : spec.value === "DIR"
          ? Options.directory(spec.name)
          : spec.value === "FILE"
            ? Options.file(spec.name)
            : Options.text(spec.name)
  const aliased = spec.alias === undefined ? base : Options.withAlias(base, spec.alias)
  return spec.value === undefined ? aliased : spec.repeated === true ? Options.repeated(aliased) : Options.optional(aliased)
}

const argument = (spec: Argv.ArgSpec): Args.Args<unknown> => {
  const base = spec.name.endsWith("dir") ? Args.directory({ name: spec.name }) : Args.text({ name: spec.name })
  return spec.variadic === true ? Args.atLeast(base, 1) : base
}

const tree = (specs: ReadonlyArray<Argv.Spec>) =>
  Command.make("agentfx").pipe(
    Command.withSubcommands(
      specs.map((spec) =>
        Command.make(spec.name, {
          options: Options.all(Object.fromEntries(spec.options.map((o) => [o.name, option(o)]))),
          args: Args.all(spec.args.map(argument))
        })
      ) as unknown as [Command.Command<string, never, never, unknown>]
    )
  )

/** The completion script for `shell` (sh is bash). */
export const script = (specs: ReadonlyArray<Argv.Spec>, shell: string): Effect.Effect<string> => {
  const command = tree(specs)
  const lines = shell === "zsh"
    ? Command.getZshCompletions(command, "agentfx")
    : shell === "fish"
      ? Command.getFishCompletions(command, "agentfx")
      : Command.getBashCompletions(command, "agentfx")
  return Effect.map(lines, (all) => `${(shell === "zsh" || shell === "fish" ? all : all.map(bashWordList)).join("\n")}\n`)
}

/**
 * @effect/cli writes a choice's words for bash as `compgen -W "a,b"`, and compgen splits its word list on white space
 * only: `--log-level <TAB>` offered one candidate, `all,trace,…`. A choice is a word (no comma, no space), so the
 * commas are the separators.
 */
const bashWordList = (line: string): string => line.replace(/compgen -W "([^"]*)"/g, (_, words: string) => `compgen -W "${words.split(",").join(" ")}"`)
