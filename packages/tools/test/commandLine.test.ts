import { describe, expect, it } from "@effect/vitest"
import * as Either from "effect/Either"
import { splitCommandLine as split } from "../src/internal/commandLine.js"

/** The words of a line that splits. */
const splitCommandLine = (line: string) => Either.getOrThrowWith(split(line), (problem) => new Error(problem.why))

/** Why a line does not split. */
const refusal = (line: string) => Either.getOrThrowWith(Either.flip(split(line)), (words) => new Error(`split into ${JSON.stringify(words)}`)).why

// How an MCP server's `command` line becomes the words given to the program: as a POSIX shell splits plain words
// and quotes, nothing more.

describe("splitCommandLine", () => {
  it("spaces, tabs and newlines separate words; runs of them make no empty words", () => {
    expect(splitCommandLine("npx  -y\tserver\n--flag ")).toEqual(["npx", "-y", "server", "--flag"])
    expect(splitCommandLine("")).toEqual([])
    expect(splitCommandLine("   ")).toEqual([])
  })

  it("single quotes keep everything literally, backslashes included", () => {
    expect(splitCommandLine(`node 'my dir/s.js' 'a\\b'`)).toEqual(["node", "my dir/s.js", "a\\b"])
    expect(splitCommandLine("''")).toEqual([""])
    expect(splitCommandLine("x'y z'w")).toEqual(["xy zw"])
  })

  it('double quotes keep spaces; inside them a backslash escapes " and \\ only', () => {
    expect(splitCommandLine(`run "a b" "say \\"hi\\"" "c:\\\\dir" "\\n"`)).toEqual(["run", "a b", 'say "hi"', "c:\\dir", "\\n"])
    expect(splitCommandLine(`""`)).toEqual([""])
    expect(splitCommandLine(`a"b c"d`)).toEqual(["ab cd"])
  })

  it("issue 35 item 12: a quote never closed is refused, saying which quote, rather than run to the end of the line", () => {
    const single = "it has an unclosed single quote ('); close it, or escape it with a backslash"
    const double = `it has an unclosed double quote ("); close it, or escape it with a backslash`
    expect(refusal("node 'abc")).toBe(single)
    expect(refusal("a 'b c")).toBe(single)
    expect(refusal("x 'closed' 'open")).toBe(single)
    expect(refusal(`"open end`)).toBe(double)
    // An escaped quote or backslash inside double quotes does not close them.
    expect(refusal(`"say \\"`)).toBe(double)
    expect(refusal(`"\\\\`)).toBe(double)
    // The words before the open quote are given with the refusal: they name the program.
    expect(split("node -e 'abc")).toEqual(Either.left({ why: single, before: ["node", "-e"] }))
    // A quote inside the other kind, or escaped outside quotes, is a character like any other.
    expect(splitCommandLine(`say "it's" 'a "b"' it\\'s`)).toEqual(["say", "it's", 'a "b"', "it's"])
  })

  it("outside quotes a backslash escapes the next character; a last one alone is kept", () => {
    expect(splitCommandLine("a\\ b c\\'d")).toEqual(["a b", "c'd"])
    expect(splitCommandLine("end\\")).toEqual(["end\\"])
    expect(splitCommandLine("\\ ")).toEqual([" "])
  })

  it("no variables, globs or operators: they are words like any other", () => {
    expect(splitCommandLine("echo $HOME *.ts && rm -rf / ; x|y")).toEqual(["echo", "$HOME", "*.ts", "&&", "rm", "-rf", "/", ";", "x|y"])
  })
})
