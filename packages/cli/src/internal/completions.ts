/**
 * Shell completion scripts, written by @effect/cli from a command tree built from our specs: the same commands,
 * options, choices and file/directory arguments that `Argv` reads. Loaded only for `agentfx --completions SHELL`.
 */
import { Args, Command, Options } from "@effect/cli"
import * as Effect from "effect/Effect"
import * as Argv from "../Argv.js"

// The tree is never parsed, only written out as scripts: whether an option may be left out or repeated, or an
// argument given more than once, is not in them.
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
  return spec.alias === undefined ? base : Options.withAlias(base, spec.alias)
}

/** A directory argument completes directories; the scripts name no other argument, and the shell completes files. */
const argument = (spec: Argv.ArgSpec): Args.Args<unknown> => (spec.name.endsWith("dir") ? Args.directory({ name: spec.name }) : Args.text())

const options = (specs: ReadonlyArray<Argv.OptionSpec>) => Options.all(Object.fromEntries(specs.map((o) => [o.name, option(o)])))

/** The root and each command with every option agentfx reads there, the global ones (`--verbose`, `--log-level`, `-h`) too. */
const tree = (specs: ReadonlyArray<Argv.Spec>) =>
  Command.make("agentfx", { options: options([...Argv.rootOptions, ...Argv.globalOptions]) }).pipe(
    Command.withSubcommands(
      specs.map((spec) =>
        Command.make(spec.name, { options: options([...spec.options, ...Argv.globalOptions]), args: Args.all(spec.args.map(argument)) })
      ) as unknown as [Command.Command<string, never, never, unknown>]
    )
  )

/**
 * @effect/cli adds its own options to every command of a tree — `--completions`, `--log-level`, `-h/--help`,
 * `--wizard`, `--version` — whatever the command reads: agentfx reads `--completions` and `--version` only before the
 * command, and `--wizard` nowhere. The tree carries agentfx's own, so @effect/cli's are left out of its scripts; they
 * are what it writes for a tree of no options and no commands.
 */
// Stryker disable next-line StringLiteral: no line of a built-in option names the command
const bare = Command.make("agentfx")

/** The completion script for `shell` (sh is bash). */
export const script = (specs: ReadonlyArray<Argv.Spec>, shell: string): Effect.Effect<string> =>
  Effect.gen(function* () {
    const command = tree(specs)
    if (shell === "zsh") {
      // Stryker disable next-line StringLiteral: zsh names the executable in no line of a built-in option
      const builtIn = yield* Command.getZshCompletions(bare, "agentfx")
      return text(zshWithout(builtIn, yield* Command.getZshCompletions(command, "agentfx")))
    }
    if (shell === "fish") return text(fishWithout(yield* Command.getFishCompletions(bare, "agentfx"), yield* Command.getFishCompletions(command, "agentfx")))
    // Stryker disable next-line StringLiteral: nor does bash
    const builtIn = yield* Command.getBashCompletions(bare, "agentfx")
    return text(bashWithout(builtIn, yield* Command.getBashCompletions(command, "agentfx")))
  })

const text = (lines: ReadonlyArray<string>): string => `${lines.join("\n")}\n`

/** zsh: a line per option (`'--name[description]…' \\`), the same for each command. */
const zshWithout = (builtIn: ReadonlyArray<string>, lines: ReadonlyArray<string>): Array<string> => {
  const theirs = new Set(builtIn.map((line) => line.trim()).filter((line) => line.startsWith("'-")))
  return lines.filter((line) => !theirs.has(line.trim()))
}

/** fish: a line per option, `complete -c agentfx -n "CONDITION" OPTION`, the condition naming the command. */
const fishWithout = (builtIn: ReadonlyArray<string>, lines: ReadonlyArray<string>): Array<string> => {
  // Stryker disable next-line StringLiteral: the lines compared are cut the same way, whatever replaces the cut
  const option = (line: string) => line.replace(/complete -c agentfx -n "[^"]*" /, "")
  const theirs = new Set(builtIn.map(option))
  return lines.filter((line) => !theirs.has(option(line)))
}

/**
 * bash: the options are named in each command's `opts` word list only, the command's own before @effect/cli's. A
 * built-in's last mention is @effect/cli's and is left out: a built-in agentfx reads is named once, one it does not
 * read not at all.
 */
const bashWithout = (builtIn: ReadonlyArray<string>, lines: ReadonlyArray<string>): Array<string> => {
  // Stryker disable next-line ArrayDeclaration: a word no opts line holds changes nothing
  const theirs = new Set(builtIn.flatMap((line) => optsWords(line) ?? []))
  return lines.map((line) => {
    const words = optsWords(line)
    if (words === undefined) return bashWordList(line)
    const kept = words.filter((word, i) => !theirs.has(word) || words.lastIndexOf(word) !== i)
    return line.replace(/opts="[^"]*"/, `opts="${kept.join(" ")}"`)
  })
}

/** The words of a command's `opts="…"` line; undefined for any other line. */
const optsWords = (line: string): Array<string> | undefined => {
  const text = line.trim()
  return text.startsWith(`opts="`) ? text.slice(`opts="`.length, -1).split(" ") : undefined
}

/**
 * @effect/cli writes a choice's words for bash as `compgen -W "a,b"`, and compgen splits its word list on white space
 * only: `--log-level <TAB>` offered one candidate, `all,trace,…`. A choice is a word (no comma, no space), so the
 * commas are the separators.
 */
const bashWordList = (line: string): string => line.replace(/compgen -W "([^"]*)"/g, (_, words: string) => `compgen -W "${words.split(",").join(" ")}"`)
