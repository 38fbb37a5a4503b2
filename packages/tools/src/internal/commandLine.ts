/**
 * A command line split into words as a POSIX shell would for plain words and quotes: spaces separate words,
 * '…' keeps everything literally, "…" keeps spaces (a backslash escapes " and \ inside it), a backslash outside
 * quotes escapes the next character. No variables, globs or operators: the words go to the program as they are.
 */
export const splitCommandLine = (line: string): ReadonlyArray<string> => {
  const words: Array<string> = []
  let word = ""
  let started = false
  for (let i = 0; i < line.length; i++) {
    const char = line[i]!
    if (char === "'") {
      const end = line.indexOf("'", i + 1)
      word += end === -1 ? line.slice(i + 1) : line.slice(i + 1, end)
      started = true
      i = end === -1 ? line.length : end
    } else if (char === '"') {
      started = true
      for (i++; i < line.length && line[i] !== '"'; i++) {
        if (line[i] === "\\" && (line[i + 1] === '"' || line[i + 1] === "\\")) i++
        word += line[i]
      }
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
  return words
}
