import * as Spelling from "@agentfx/core/Spelling"
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import type { Document } from "yaml"
import { isAlias, isMap, isNode, isScalar, isSeq, LineCounter, parseAllDocuments, parseDocument } from "yaml"

/** A problem in a YAML source: where (1-based line, when known), which field, what. */
export interface Problem {
  readonly line?: number | undefined
  readonly field?: string | undefined
  readonly reason: string
}

/** `file:line` (or the file alone): how errors name a place in a YAML source, so that editors can jump to it. */
export const where = (file: string, line: number | undefined): string => (line === undefined ? file : `${file}:${line}`)

/** A parsed YAML document: its value, and the source line of any path inside it. */
export interface Source {
  readonly value: unknown
  /** 1-based line of the node at `path`, or of its nearest existing ancestor. */
  readonly lineOf: (path: ReadonlyArray<PropertyKey>) => number | undefined
  /** The text of the scalar at `path` as written (`1.10`, which its value, the number 1.1, no longer says). */
  readonly textOf: (path: ReadonlyArray<PropertyKey>) => string | undefined
}

// Aliases can expand exponentially ("billion laughs"); no hand-written case or scenario needs many.
const maxAliasCount = 50

// The parser refuses a key written twice the same way; `forbiddenKey` refuses the rest (`1` and `'1'`, an alias of a
// key), which are one property once made JSON, where the later would silently replace the earlier.
const options = (lineCounter: LineCounter) => ({ lineCounter, prettyErrors: true, uniqueKeys: true, strict: true })

const firstError = (document: Document.Parsed, lineOffset: number): Problem | undefined => {
  const error = document.errors[0]
  if (error === undefined) return undefined
  // Stryker disable next-line OptionalChaining: the parser gives every error found in a source its place in it
  const line = error.linePos?.[0].line
  // Stryker disable next-line ConditionalExpression: the same; the check is for the type
  return { line: line === undefined ? undefined : line + lineOffset, reason: error.message.split("\n")[0]!.replace(/ at line \d+, column \d+:?$/, "") }
}

/** The line a parsed node starts on; undefined for what is not a node (an empty document's contents, a missing item). */
const startLine = (node: unknown, lineAt: (offset: number) => number): number | undefined =>
  // Stryker disable next-line ConditionalExpression: every parsed node has its range; the check is for the type
  isNode(node) && node.range ? lineAt(node.range[0]) : undefined

/** A mapping key as the property name it becomes: a scalar's text, or that of the scalar an alias points to. */
const keyOf = (document: Document.Parsed, key: unknown): string | undefined => {
  const resolved = isAlias(key) ? key.resolve(document) : key
  return isScalar(resolved) ? String(resolved.value) : undefined
}

// A key that reaches an object's prototype instead of naming a field: dropped or ignored further on, never kept
// as written. Refused wherever it is.
const prototypeKeys = new Set(["__proto__"])
// Under these keys a mapping's keys are names, looked up in plain objects (functions, schema definitions): there
// `constructor` and `prototype` would find Object's own members, so they are refused as names.
const nameMaps = new Set(["mock_function_responses", "$defs", "definitions"])
const objectMembers = new Set(["constructor", "prototype"])

/**
 * The first key (in document order) that must not be used, as a problem naming its path and line: a key that is not
 * plain text (a list or mapping as a key, which JavaScript would turn into text such as "[ a ]"), a key given twice
 * once made a property name, or one that names a member of every object. A key that is an alias (`*k :`) is looked
 * at as the scalar it points to, since that is the key the object gets.
 */
const forbiddenKey = (document: Document.Parsed, lineAt: (offset: number) => number): Problem | undefined => {
  const root: unknown = document.contents
  // An explicit stack, not recursion: a document nested deeply enough would overflow it.
  const stack: Array<{ readonly node: unknown; readonly path: ReadonlyArray<PropertyKey>; readonly names: boolean }> = [{ node: root, path: [], names: false }]
  while (stack.length > 0) {
    const { node, path, names } = stack.pop()!
    const children: Array<{ node: unknown; path: ReadonlyArray<PropertyKey>; names: boolean }> = []
    if (isMap(node)) {
      const seen = new Set<string>()
      for (const item of node.items) {
        const key = keyOf(document, item.key)
        const line = startLine(item.key, lineAt)
        if (key === undefined) {
          return { line, field: path.length === 0 ? undefined : formatPath(path), reason: "a key must be plain text, not a list or a mapping" }
        }
        if (seen.has(key)) {
          return { line, field: formatPath([...path, key]), reason: `the key "${key}" is given twice in one mapping: keys must be unique` }
        }
        seen.add(key)
        if (prototypeKeys.has(key) || (names && objectMembers.has(key))) {
          return {
            line,
            field: formatPath([...path, key]),
            reason: `the key "${key}" is not allowed here: it names a member of every JavaScript object, so it would not be read as written`
          }
        }
        children.push({ node: item.value, path: [...path, key], names: nameMaps.has(key) })
      }
    } else if (isSeq(node)) {
      node.items.forEach((item, index) => children.push({ node: item, path: [...path, index], names: false }))
    }
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!)
  }
  return undefined
}

const sourceOf = (text: string, document: Document.Parsed, lineCounter: LineCounter, lineOffset: number): Either.Either<Source, Problem> => {
  const lineAt = (offset: number) => lineCounter.linePos(offset).line + lineOffset
  const forbidden = forbiddenKey(document, lineAt)
  if (forbidden !== undefined) return Either.left(forbidden)
  let value: unknown
  try {
    value = document.toJS({ maxAliasCount })
  } catch (error) {
    return Either.left({ reason: error instanceof Error ? error.message : String(error) })
  }
  /** The node at `path` (undefined when the path leaves the document) and the line of it or its nearest ancestor. */
  const find = (path: ReadonlyArray<PropertyKey>): { readonly node: unknown; readonly line: number | undefined } => {
    let node: unknown = document.contents
    let line = startLine(node, lineAt)
    for (const key of path) {
      if (isMap(node)) {
        // Keys were checked by `forbiddenKey`: each is plain text, or an alias of it.
        const pair = node.items.find((item) => keyOf(document, item.key) === String(key))
        if (pair === undefined) return { node: undefined, line }
        line = startLine(pair.key, lineAt) ?? line
        node = pair.value
      } else if (isSeq(node) && typeof key === "number") {
        const item: unknown = node.items[key]
        // Past the end: the next key, or the end of the path, gives what was found so far.
        line = startLine(item, lineAt) ?? line
        node = item
      } else {
        return { node: undefined, line }
      }
    }
    return { node, line }
  }
  const textOf = (path: ReadonlyArray<PropertyKey>): string | undefined => {
    const { node } = find(path)
    // Stryker disable next-line ConditionalExpression: every parsed scalar has its range; the check is for the type
    return isScalar(node) && node.range ? text.slice(node.range[0], node.range[1]) : undefined
  }
  return Either.right({ value, lineOf: (path) => find(path).line, textOf })
}

/** Parses one YAML document; `lineOffset` is added to every line (for front matter below a `---` line). */
export const parse = (text: string, lineOffset = 0): Either.Either<Source, Problem> => {
  const lineCounter = new LineCounter()
  const document = parseDocument(text, options(lineCounter))
  const problem = firstError(document, lineOffset)
  return problem === undefined ? sourceOf(text, document, lineCounter, lineOffset) : Either.left(problem)
}

/** Parses every document of a multi-document stream (`---` separated); empty documents are skipped. */
export const parseAll = (text: string): Either.Either<ReadonlyArray<Source>, Problem> => {
  const lineCounter = new LineCounter()
  // An empty stream (`EmptyStream`) is an empty array as well.
  const documents: ReadonlyArray<Document.Parsed> = parseAllDocuments(text, options(lineCounter))
  const sources: Array<Source> = []
  for (const document of documents) {
    const problem = firstError(document, 0)
    if (problem !== undefined) return Either.left(problem)
    // A trailing `---` makes an empty document; it holds no case.
    if (document.contents === null || (isScalar(document.contents) && document.contents.value === null)) continue
    const source = sourceOf(text, document, lineCounter, 0)
    if (Either.isLeft(source)) return Either.left(source.left)
    sources.push(source.right)
  }
  return Either.right(sources)
}

/** `a.b[2].c` for a Schema issue path. */
export const formatPath = (path: ReadonlyArray<PropertyKey>): string =>
  path.reduce<string>((acc, key) => (typeof key === "number" ? `${acc}[${key}]` : acc === "" ? String(key) : `${acc}.${String(key)}`), "")

const isPrefix = (prefix: ReadonlyArray<PropertyKey>, path: ReadonlyArray<PropertyKey>): boolean =>
  prefix.length < path.length && prefix.every((key, i) => key === path[i])

// At one path, a specific complaint beats "Expected <type>": the latter is usually a union's other branch.
const tagRank = (tag: string): number => (tag === "Type" ? 1 : 0)

/** The keys an "is unexpected" issue lists as expected (`is unexpected, expected: "a" | "b"`). */
const expectedKeys = (message: string): ReadonlyArray<string> =>
  /^is unexpected, expected: /.test(message) ? Array.from(message.matchAll(/"((?:[^"\\]|\\.)*)"/g), (match) => match[1]!) : []

/**
 * Decodes a YAML source with a Schema; on failure, every problem, each naming its field and line, in the file's order.
 * Issues at a path that has deeper issues are dropped (they are a union's failed alternatives), and at one path the
 * most specific one is kept. An unknown key close to a known one says "did you mean"; the known one it stands for is
 * then not also reported as missing. `prefix` is prepended to paths (e.g. the key a sub-document sits under).
 */
export const decodeAll = <A, I>(
  schema: Schema.Schema<A, I>,
  source: Source,
  prefix: ReadonlyArray<PropertyKey> = []
): Either.Either<A, readonly [Problem, ...Array<Problem>]> =>
  Either.mapLeft(Schema.decodeUnknownEither(schema, { errors: "all", onExcessProperty: "error" })(source.value), (error) => {
    const all = ParseResult.ArrayFormatter.formatErrorSync(error)
    const byPath = new Map<string, (typeof all)[number]>()
    for (const issue of all.filter((issue) => !all.some((other) => isPrefix(issue.path, other.path)))) {
      const key = formatPath(issue.path)
      const kept = byPath.get(key)
      if (kept === undefined || tagRank(issue._tag) < tagRank(kept._tag)) byPath.set(key, issue)
    }
    const specific = [...byPath.values()]
    // An unknown key that is a misspelling of a missing one: one problem, not two.
    const meant = new Set<string>()
    const suggestions = new Map<(typeof all)[number], string>()
    for (const issue of specific) {
      const key = issue.path.at(-1)
      if (issue._tag !== "Unexpected" || typeof key !== "string") continue
      const near = Spelling.closest(key, expectedKeys(issue.message))
      if (near === undefined) continue
      suggestions.set(issue, near)
      meant.add(formatPath([...issue.path.slice(0, -1), near]))
    }
    const problems = specific
      .filter((issue) => !(issue._tag === "Missing" && meant.has(formatPath(issue.path))))
      .map((issue) => ({ issue, line: source.lineOf(issue.path) }))
      .sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || tagRank(a.issue._tag) - tagRank(b.issue._tag))
      .map(({ issue, line }): Problem => {
        // An empty list that needs an entry shows up as "element 0 is missing".
        const emptyList = issue._tag === "Missing" && typeof issue.path.at(-1) === "number"
        const path = emptyList ? issue.path.slice(0, -1) : issue.path
        const field = formatPath([...prefix, ...path])
        const near = suggestions.get(issue)
        const reason = emptyList ? "the list is empty: give at least one entry" : humanise(issue.message, near)
        return { line, field: field === "" ? undefined : field, reason }
      })
    return [problems[0]!, ...problems.slice(1)]
  })

/**
 * Decodes a YAML source with a Schema and turns the most useful issue into a `Problem` naming the field and its
 * line: the first of `decodeAll`'s, saying how many more there are.
 */
export const decode = <A, I>(
  schema: Schema.Schema<A, I>,
  source: Source,
  prefix: ReadonlyArray<PropertyKey> = []
): Either.Either<A, Problem> =>
  Either.mapLeft(decodeAll(schema, source, prefix), ([first, ...rest]) =>
    rest.length === 0 ? first : { ...first, reason: `${first.reason} (and ${rest.length} more problem${rest.length > 1 ? "s" : ""})` }
  )

/** Effect's messages, phrased for someone editing a YAML file. */
const humanise = (message: string, near?: string): string =>
  message
    .replace(
      /^is unexpected, expected: (.*)$/s,
      (_, keys: string) => `unknown field${near === undefined ? "" : ` (did you mean "${near}"?)`}; expected one of ${keys.replace(/"/g, "")}`
    )
    .replace(/^is missing$/, "is required but missing")
    // Effect spells out whole struct types; past a few words they help nobody editing a file.
    .replace(/^Expected (.+), actual (.*)$/s, (whole, expected: string, actual: string) => (expected.length > 60 ? `has the wrong shape (got ${actual})` : whole))
