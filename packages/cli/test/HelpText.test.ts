/** `--help` text fills the width it is given and never passes it (issue 35, item 18: continuation lines wrapped at width − 2 × indent). */
import { Argv, Cli, HelpText } from "@agentfx/cli"
import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"

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
