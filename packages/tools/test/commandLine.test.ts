import { describe, expect, it } from "@effect/vitest"
import { splitCommandLine } from "../src/internal/commandLine.js"

// How an MCP server's `command` line becomes the words given to the program: as a POSIX shell splits plain words
// and quotes, nothing more.

describe("splitCommandLine", () => {
  it("spaces, tabs and newlines separate words; runs of them make no empty words", () => {
    expect(splitCommandLine("npx  -y\tserver\n--flag ")).toEqual(["npx", "-y", "server", "--flag"])
    expect(splitCommandLine("")).toEqual([])
    expect(splitCommandLine("   ")).toEqual([])
  })

  it("single quotes keep everything literally, backslashes included; an unclosed one runs to the end", () => {
    expect(splitCommandLine(`node 'my dir/s.js' 'a\\b'`)).toEqual(["node", "my dir/s.js", "a\\b"])
    expect(splitCommandLine("a 'b c")).toEqual(["a", "b c"])
    expect(splitCommandLine("''")).toEqual([""])
    expect(splitCommandLine("x'y z'w")).toEqual(["xy zw"])
  })

  it('double quotes keep spaces; inside them a backslash escapes " and \\ only', () => {
    expect(splitCommandLine(`run "a b" "say \\"hi\\"" "c:\\\\dir" "\\n"`)).toEqual(["run", "a b", 'say "hi"', "c:\\dir", "\\n"])
    expect(splitCommandLine(`""`)).toEqual([""])
    expect(splitCommandLine(`"open end`)).toEqual(["open end"])
    // An escaped backslash that ends an unclosed quote is one backslash, and nothing after it.
    expect(splitCommandLine(`"\\\\`)).toEqual(["\\"])
    expect(splitCommandLine(`a"b c"d`)).toEqual(["ab cd"])
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
