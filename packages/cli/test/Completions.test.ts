/**
 * `agentfx --completions SHELL`: what each shell is offered for each kind of option and argument of a spec — a flag,
 * a value, a choice, a directory, a file, a repeatable value, an alias, a directory argument and a variadic one.
 */
import type { Argv } from "@agentfx/cli"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { script } from "../src/internal/completions.js"
import { spawnSync } from "node:child_process"
import { agentfx } from "./support/cli.js"

const go: Argv.Spec = {
  name: "go",
  summary: "Goes.",
  description: [],
  options: [
    { name: "flag", alias: "f", description: "A flag." },
    { name: "pick", value: "WORD", choices: ["aa", "bb"], description: "A choice." },
    { name: "where", value: "DIR", description: "A directory." },
    { name: "input", value: "FILE", description: "A file." },
    { name: "many", value: "N", repeated: true, description: "A repeatable value." },
    { name: "text", alias: "t", value: "T", description: "A value." }
  ],
  args: [{ name: "cases-dir", description: "A directory." }, { name: "prompt", variadic: true, description: "Words." }]
}

const lines = (text: string): ReadonlyArray<string> => text.split("\n")

describe("completions", () => {
  it.effect("fish: a flag takes no value, a choice lists its words, DIR completes directories, FILE files, an alias is -X", () =>
    Effect.gen(function* () {
      const fish = yield* script([go], "fish")
      const seen = (rest: string) => `complete -c agentfx -n "__fish_seen_subcommand_from go" ${rest}`
      expect(lines(fish)).toEqual(expect.arrayContaining([
        seen("-s f -l flag"),
        seen(`-l pick -r -f -a "{aa'',bb''}"`),
        seen(`-l where -r -f -a "(__fish_complete_directories (commandline -ct))"`),
        seen("-l input -r -F"),
        seen("-l many -r -f"),
        seen("-s t -l text -r -f"),
        // <cases-dir> completes directories; the words of <prompt> anything.
        seen(`-r -f -a "(__fish_complete_directories (commandline -ct))"`),
        seen("-r -f")
      ]))
      expect(fish.endsWith(`${seen("-r -f")}\n`)).toBe(true)
    }))

  it.effect("bash offers each word of a choice as its own candidate (compgen splits on white space, not commas)", () =>
    Effect.gen(function* () {
      const bash = yield* script([go], "bash")
      const all = lines(bash)
      const line = all[all.findIndex((text) => text.trim() === "--pick)") + 1]!
      const words = /compgen -W "([^"]*)"/.exec(line)![1]!
      const offered = spawnSync("bash", ["-c", `compgen -W "${words}" -- ""`], { encoding: "utf8" })
      expect(offered.stdout.split("\n").filter((word) => word !== "")).toEqual(["aa", "bb"])
    }))

  it.effect("bash and sh (the same script): a flag completes nothing, a choice its words, DIR directories, FILE files", () =>
    Effect.gen(function* () {
      const bash = yield* script([go], "bash")
      expect(yield* script([go], "sh")).toBe(bash)
      const text = bash.replace(/\n {16}/g, "\n")
      expect(text).toContain(`-f|--flag)\n    COMPREPLY=( "\${cur}" )\n`)
      expect(text).toContain(`--pick)\n    COMPREPLY=( $(compgen -W "aa bb" -- "\${cur}") )\n`)
      expect(text).toContain(`--where)\n    COMPREPLY=( $(compgen -d "\${cur}") )\n`)
      expect(text).toContain(`--input)\n    COMPREPLY=( $(compgen -f "\${cur}") )\n`)
      expect(text).toContain(`-t|--text)\n    COMPREPLY=( $(compgen -f "\${cur}") )\n`)
      expect(bash).toContain(`opts="-f -t -h --flag --pick --where --input --many --text --verbose --log-level --help"`)
      expect(bash).toContain(`\n                cmd="agentfx"\n`)
      expect(lines(bash).at(-2)).toBe("complete -F _agentfx_bash_completions -o nosort -o bashdefault -o default agentfx")
      expect(bash.endsWith("agentfx\n")).toBe(true)
    }))

  it.effect("zsh: choices, directories and files for options; a directory argument; a variadic one left to the shell", () =>
    Effect.gen(function* () {
      const zsh = yield* script([go], "zsh")
      expect(zsh.startsWith("#compdef agentfx\n\nautoload -U is-at-least\n")).toBe(true)
      const entries = lines(zsh).map((line) => line.trim())
      expect(entries).toEqual(expect.arrayContaining([
        `'-f[]' \\`,
        `'--flag[]' \\`,
        `'--pick[]:CHOICE:(aa bb)' \\`,
        `'--where[]:PATH:_files -/' \\`,
        `'--input[]:PATH:_files' \\`,
        `'--many[]' \\`,
        `'-t[]' \\`,
        `'--text[]' \\`,
        `':<cases-dir>:PATH:_files -/' \\`
      ]))
      // The variadic <prompt> is not offered as an argument of its own.
      expect(zsh).not.toContain("<prompt>")
      expect(zsh.endsWith("    compdef _agentfx_zsh_completions agentfx\nfi\n")).toBe(true)
    }))

  it.effect("agentfx --completions=zsh and --completions zsh print the zsh script for every command", () =>
    Effect.gen(function* () {
      const inline = yield* agentfx(["--completions=zsh"])
      const apart = yield* agentfx(["--completions", "zsh"])
      expect(inline.code).toBe(0)
      expect(inline.stdout).toBe(apart.stdout)
      expect(inline.stdout.startsWith("#compdef agentfx\n")).toBe(true)
      expect(inline.stdout).toContain("'--scenarios[]:PATH:_files -/' \\")
      const missing = yield* agentfx(["--completions"])
      expect([missing.code, missing.stderr]).toEqual([2, "agentfx: --completions needs a shell: bash, zsh, fish or sh\n"])
    }))

  it.effect("every shell offers what agentfx reads where it reads it: --verbose before and after the command, --completions and --version before it, --wizard nowhere", () =>
    Effect.gen(function* () {
      const fish = lines(yield* script([go], "fish"))
      const longs = (context: string) =>
        fish.filter((line) => line.includes(`-n "${context}"`)).flatMap((line) => / -l ([a-z-]+)/.exec(line)?.[1] ?? [])
      expect(longs("__fish_use_subcommand")).toEqual(["help", "version", "completions", "verbose", "log-level"])
      expect(longs("__fish_seen_subcommand_from go")).toEqual(["flag", "pick", "where", "input", "many", "text", "verbose", "log-level", "help"])
      const zsh = lines(yield* script([go], "zsh")).map((line) => line.trim())
      const cases = zsh.indexOf("case $state in")
      const named = (from: number, to: number) => zsh.slice(from, to).flatMap((line) => /^'(--?[a-z-]+)\[/.exec(line)?.[1] ?? [])
      expect(named(0, cases)).toEqual(["-h", "--help", "--version", "--completions", "--verbose", "--log-level"])
      expect(named(cases, zsh.length)).toEqual(["-f", "--flag", "--pick", "--where", "--input", "--many", "-t", "--text", "--verbose", "--log-level", "-h", "--help"])
    }))

  it.effect("bash, as a user's <TAB> runs it: after agentfx and after agentfx run, the options each reads", () =>
    Effect.gen(function* () {
      const { stdout } = yield* agentfx(["--completions", "bash"])
      const offered = (words: ReadonlyArray<string>) => {
        const tab = [
          stdout,
          `COMP_WORDS=(${words.map((word) => `'${word}'`).join(" ")}); COMP_CWORD=${words.length - 1}`,
          `_agentfx_bash_completions agentfx; printf '%s\\n' "\${COMPREPLY[@]}"`
        ].join("\n")
        return spawnSync("bash", ["-c", tab], { encoding: "utf8" }).stdout.split("\n").filter((word) => word !== "")
      }
      expect(offered(["agentfx", "--"])).toEqual(["--help", "--version", "--completions", "--verbose", "--log-level"])
      expect(offered(["agentfx", "run", "--v"])).toEqual(["--verbose"])
      expect(offered(["agentfx", "run", "--log-level", "d"])).toEqual(["debug"])
      expect(offered(["agentfx", "run", "--w"])).toEqual([])
    }))
})
