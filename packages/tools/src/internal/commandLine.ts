/**
 * A command line split into words as a POSIX shell would for plain words and quotes: spaces separate words,
 * '…' keeps everything literally, "…" keeps spaces (a backslash escapes " and \ inside it), a backslash outside
 * quotes escapes the next character. No variables, globs or operators: the words go to the program as they are.
 *
 * A quote that is never closed is refused, as a shell refuses it, rather than run to the end of the line: the words
 * a line like `node 'abc` would give are a guess at what was meant, and a guess is not something to start a program on.
 */
import * as Either from "effect/Either"

/** Why a line cannot be split, as the end of a sentence ("…: <why>"). */
export const unclosedQuote = (quote: "'" | '"'): string =>
  `it has an unclosed ${quote === "'" ? "single" : "double"} quote (${quote}); close it, or escape it with a backslash`

/** Why a line cannot be split, and the words it held before the quote left open (the program, most of the time). */
export interface Unsplittable {
  readonly why: string
  readonly before: ReadonlyArray<string>
}

/** The words of `line`, or why it cannot be split (an unclosed quote). */
export const splitCommandLine = (line: string): Either.Either<ReadonlyArray<string>, Unsplittable> => {
  const words: Array<string> = []
  let word = ""
  let started = false
  for (let i = 0; i < line.length; i++) {
    const char = line[i]!
    if (char === "'") {
      const end = line.indexOf("'", i + 1)
      if (end === -1) return Either.left({ why: unclosedQuote("'"), before: words })
      word += line.slice(i + 1, end)
      started = true
      i = end
    } else if (char === '"') {
      started = true
      for (i++; i < line.length && line[i] !== '"'; i++) {
        if (line[i] === "\\" && (line[i + 1] === '"' || line[i + 1] === "\\")) i++
        word += line[i]
      }
      if (i >= line.length) return Either.left({ why: unclosedQuote('"'), before: words })
    } else if (char === "\\" && i + 1 < line.length) {
      word += line[++i]
      started = true
    } else if (/\s/.test(char)) {
      if (started) words.push(word)
      word = ""
      started = false
    } else {
      word += char
      started = true
    }
  }
  if (started) words.push(word)
  return Either.right(words)
}
