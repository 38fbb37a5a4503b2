/** `--help` text fills the width it is given and never passes it (issue 35, item 18: continuation lines wrapped at width − 2 × indent). */
import { Argv, Cli, HelpText } from "@agentfx/cli"
import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import { answer } from "../src/internal/immediate.js"

const word = fc.stringMatching(/^[a-z]{1,12}$/)

/** Each line of `wrap`'s result with the columns before it (`first` on the first line, `indent` on the others). */
const placed = (text: string, indent: number, first: number): ReadonlyArray<readonly [number, string]> =>
  text.split("\n").map((line, i) => (i === 0 ? [first, line] : [indent, line.slice(indent)]))

describe("HelpText (issue 35, item 18)", () => {
  it.prop(
    "wrap: no line passes the width, and none could have taken the next line's first word",
    [fc.array(word, { minLength: 1, maxLength: 60 }), fc.integer({ min: 0, max: 30 }), fc.integer({ min: 0, max: 30 }), fc.integer({ min: 20, max: 120 })],
    ([words, indent, first, extra]) => {
      const width = Math.max(indent, first) + 12 + extra
      const lines = placed(HelpText.wrap(words.join(" "), width, indent, first), indent, first)
      expect(lines.map(([, line]) => line).join(" ")).toBe(words.join(" "))
      lines.forEach(([offset, line], i) => {
        expect(offset + line.length).toBeLessThanOrEqual(width)
        const next = lines[i + 1]
        if (next !== undefined) expect(offset + line.length + 1 + next[1].split(" ")[0]!.length).toBeGreaterThan(width)
      })
    }
  )

  it("every command's help and the root help: within the width, and no description line could have taken the next line's first word", () => {
    for (const width of [60, 80, 100]) {
      const options = { color: false, width }
      const texts = [
        HelpText.root(Cli.commands, Argv.rootOptions, options),
        ...Cli.commands.map((spec) => HelpText.command(spec, Argv.globalOptions, Argv.usage(spec), options))
      ]
      for (const text of texts) {
        const lines = text.split("\n")
        // Usage lines and examples are printed as they are, and a word longer than the room has a line of its own;
        // everything else keeps to the width.
        for (const line of lines.filter((line) => !/^(Usage:| {2}agentfx |agentfx )/.test(line) && line.trim().includes(" "))) {
          expect(line.length, line).toBeLessThanOrEqual(width)
        }
        // A description's next line starts at its column, as the line before it does after the term.
        lines.forEach((line, i) => {
          const next = lines[i + 1] ?? ""
          const column = /^ */.exec(next)![0].length
          if (column < 6 || next.trim() === "" || line.length <= column || line[column - 1] !== " " || line[column] === " ") return
          expect(line.length + 1 + next.trim().split(" ")[0]!.length, `${line}\n${next}`).toBeGreaterThan(width)
        })
      }
    }
  })
})

const go: Argv.Spec = {
  name: "go",
  summary: "Goes somewhere.",
  description: ["The first paragraph, long enough that it wraps at forty columns.", "A second one."],
  options: [
    { name: "yes", alias: "y", description: "Answer yes." },
    { name: "bail", value: "N", optionalValue: (next) => /^\d+$/.test(next), description: "Stop after N failures (1 when N is left out)." },
    { name: "tag", value: "TAG", repeated: true, description: "A tag." },
    // Its term is 25 columns: too long for two spaces before the description column (28, the most it may be).
    { name: "twenty-one-characters", value: "X", description: "Printed below its term." }
  ],
  args: [{ name: "dir", description: "Where." }, { name: "words", variadic: true, description: "What to say." }],
  examples: ["agentfx go here hello", "agentfx go --yes there"]
}

const stay: Argv.Spec = { name: "stay", summary: "Stays.", description: [], options: [], args: [], examples: [] }

describe("HelpText: the exact layout", () => {
  it("wrap: words split on any run of white space, none empty, and a word longer than the room on a line of its own", () => {
    expect(HelpText.wrap("  one \t two\n\nthree  ", 40)).toBe("one two three")
    expect(HelpText.wrap("one two three", 9, 2)).toBe("one two\n  three")
    expect(HelpText.wrap("unbreakable word", 5, 1, 3)).toBe("unbreakable\n word")
    expect(HelpText.wrap(" \n ", 10, 4)).toBe("")
  })

  it("a command's help: title, usage, paragraphs, arguments, each kind of option (alias, flag, [optional value], repeatable), a long term, examples", () => {
    expect(HelpText.command(go, Argv.globalOptions, Argv.usage(go), { color: false, width: 60 }).split("\n")).toEqual(
      [
        "agentfx go — Goes somewhere.",
        "",
        "Usage: agentfx go [options] [--] <dir> <words>...",
        "",
        "The first paragraph, long enough that it wraps at forty",
        "columns.",
        "",
        "A second one.",
        "",
        "Arguments:",
        "  <dir>       Where.",
        "  <words>...  What to say.",
        "",
        "Options:",
        "  -y, --yes                 Answer yes.",
        "  --bail [N]                Stop after N failures (1 when N",
        "                            is left out).",
        "  --tag TAG (repeatable)    A tag.",
        "  --twenty-one-characters X",
        "                            Printed below its term.",
        "  --verbose                 On an error, print its details",
        "                            (the cause, each problem) after",
        "                            the one-line message.",
        "  --log-level LEVEL         The least severe log messages",
        "                            printed on stderr (the",
        "                            libraries' own logging; default",
        "                            info).",
        "  -h, --help                Show this help.",
        "",
        "Examples:",
        "  agentfx go here hello",
        "  agentfx go --yes there",
        ""
      ]
    )
  })

  it("a command with no arguments and no examples has neither heading; headings are bold with colour; the width is 100 by default", () => {
    expect(HelpText.command(stay, Argv.globalOptions, Argv.usage(stay), { color: true }).split("\n")).toEqual(
      [
        "agentfx stay — Stays.",
        "",
        "\u001b[1mUsage:\u001b[0m agentfx stay [options]",
        "",
        "\u001b[1mOptions:\u001b[0m",
        "  --verbose          On an error, print its details (the cause, each problem) after the one-line",
        "                     message.",
        "  --log-level LEVEL  The least severe log messages printed on stderr (the libraries' own logging;",
        "                     default info).",
        "  -h, --help         Show this help.",
        ""
      ]
    )
  })

  it("the root help: what agentfx is, the commands, the root options, the exit codes, where a command's help is", () => {
    expect(HelpText.root([go, stay], Argv.rootOptions, { color: false, width: 60 }).split("\n")).toEqual(
      [
        "agentfx — function-calling LLM agents from the terminal",
        "",
        "Usage: agentfx COMMAND [options]",
        "",
        "With no API key set, every command runs offline against the",
        "built-in emulator and says so. GEMINI_API_KEY (or",
        "GOOGLE_API_KEY), ZAI_API_KEY or OPENAI_API_KEY choose a real",
        "provider; --provider overrides.",
        "",
        "Commands:",
        "  go    Goes somewhere.",
        "  stay  Stays.",
        "",
        "Options:",
        "  -h, --help           Show this help (agentfx COMMAND",
        "                       --help for a command's).",
        "  --version            Print the version.",
        "  --completions SHELL  Print a completion script for bash,",
        "                       zsh, fish or sh (see the README:",
        "                       Shell completions).",
        "",
        "Exit codes:",
        "  0    success",
        "  1    the command ran and failed (a model error, an eval",
        "       below its threshold)",
        "  2    bad arguments, files or configuration: nothing was",
        "       run",
        "  130  stopped with Ctrl-C",
        "  141  the reader of its output went away (| head): stopped",
        "       quietly",
        "",
        "agentfx COMMAND --help describes a command.",
        ""
      ]
    )
    const bold = HelpText.root([go, stay], Argv.rootOptions, { color: true })
    for (const heading of ["Usage:", "Commands:", "Options:", "Exit codes:"]) expect(bold).toContain(`\u001b[1m${heading}\u001b[0m`)
    expect(bold.replaceAll("\u001b[1m", "").replaceAll("\u001b[0m", "")).toBe(HelpText.root([go, stay], Argv.rootOptions, { color: false, width: 100 }))
  })
})

describe("what agentfx answers without running anything (internal/immediate.ts)", () => {
  it("--help at the width the executable gives it, bold when colour is on; the default width otherwise; --version; a usage error", () => {
    const run = Cli.commands.find((spec) => spec.name === "run")!
    expect(answer(Cli.commands, Argv.parse(Cli.commands, ["--help"]), true, 60)).toEqual({
      code: 0,
      stdout: HelpText.root(Cli.commands, Argv.rootOptions, { color: true, width: 60 }),
      stderr: ""
    })
    expect(answer(Cli.commands, Argv.parse(Cli.commands, ["run", "--help"]), false, 60)).toEqual({
      code: 0,
      stdout: HelpText.command(run, Argv.globalOptions, Argv.usage(run), { color: false, width: 60 }),
      stderr: ""
    })
    expect(answer(Cli.commands, Argv.parse(Cli.commands, ["--help"]), false)?.stdout).toBe(
      HelpText.root(Cli.commands, Argv.rootOptions, { color: false, width: 100 })
    )
    expect(answer(Cli.commands, Argv.parse(Cli.commands, ["--version"]), false)).toEqual({ code: 0, stdout: "agentfx 0.1.0\n", stderr: "" })
    expect([Cli.name, Cli.version]).toEqual(["agentfx", "0.1.0"])
    expect(answer(Cli.commands, Argv.parse(Cli.commands, ["--verison"]), false)).toEqual({
      code: 2,
      stdout: "",
      stderr: "agentfx: unknown option --verison for agentfx (did you mean --version?); the command comes first: agentfx COMMAND [options]\n"
    })
    expect(answer(Cli.commands, Argv.parse(Cli.commands, ["--completions", "zsh"]), false)).toBeUndefined()
    expect(answer(Cli.commands, Argv.parse(Cli.commands, ["run", "hi"]), false)).toBeUndefined()
  })
})
