/**
 * Checks on the agent's final answer, as case fields: `answer_contains` (phrases, ignoring case and runs of white
 * space, as `body_contains`), `answer_matches` (a regular expression: `pattern`, or `/pattern/flags`, at most
 * `maxPatternLength` characters), `answer_equals` (the whole answer, surrounding white space aside) and
 * `answer_max_chars` (a bound on its length in characters). A pattern that does not compile, an empty phrase and a
 * bound below 1 are problems of the case file, at their line.
 */
import * as Schema from "effect/Schema"

/** The longest `answer_matches` pattern: a case's pattern is read by people, and a long one is a mistake. */
export const maxPatternLength = 1000

const flagsAllowed = /^[imsu]*$/

/** The pattern and flags of `answer_matches` (`/a+b/i` or `a+b`), or why it cannot be used. */
export const compile = (written: string): RegExp | string => {
  if (written.length > maxPatternLength) return `the pattern is ${written.length} characters long; at most ${maxPatternLength} are read`
  const slashed = /^\/(.*)\/([a-z]*)$/s.exec(written)
  const [source, flags] = slashed === null ? [written, ""] : [slashed[1]!, slashed[2]!]
  if (!flagsAllowed.test(flags)) return `the flags "${flags}" are not allowed: use i, m, s or u`
  try {
    return new RegExp(source, flags)
  } catch (error) {
    return `the pattern does not compile: ${error instanceof Error ? error.message : String(error)}`
  }
}

const Phrase = Schema.String.pipe(Schema.filter((phrase) => /\S/.test(phrase) || "an empty phrase is in every answer: give the words to look for"))
const Phrases = Schema.transform(
  Schema.Union(Phrase, Schema.Array(Phrase).pipe(Schema.minItems(1, { message: () => "the list is empty: give the words to look for, or leave answer_contains out" }))),
  Schema.Array(Schema.String),
  { strict: true, decode: (value) => (typeof value === "string" ? [value] : value), encode: (list) => list }
)

const Pattern = Schema.String.pipe(
  Schema.filter((written) => {
    const compiled = compile(written)
    return typeof compiled === "string" ? compiled : true
  })
)

/** The case fields, spread into the case's schema. */
export const fields = {
  answer_contains: Schema.optional(Phrases),
  answer_matches: Schema.optional(Pattern),
  answer_equals: Schema.optional(Schema.String),
  answer_max_chars: Schema.optional(Schema.Int.pipe(Schema.greaterThanOrEqualTo(1, { message: () => "a bound of at least 1 character" })))
}

/** What the checks read of a case. */
export interface Assertions {
  readonly answer_contains?: ReadonlyArray<string> | undefined
  readonly answer_matches?: string | undefined
  readonly answer_equals?: string | undefined
  readonly answer_max_chars?: number | undefined
}

/**
 * The answer does not meet one of the case's `answer_*` checks: which, what it expected, and the answer.
 *
 * @since 0.2.0
 */
export const AnswerMismatch = Schema.TaggedStruct("AnswerMismatch", {
  rule: Schema.Literal("answer_contains", "answer_matches", "answer_equals", "answer_max_chars"),
  expected: Schema.Union(Schema.String, Schema.Number),
  answer: Schema.String
})

// Stryker disable next-line MethodExpression: folding to upper case instead differs only for letters whose two cases differ in length (ß, SS)
const normalise = (text: string): string => text.replace(/\s+/g, " ").trim().toLowerCase()

const length = (text: string): number => [...text].length

/** Every way `answer` misses the case's checks; empty when it meets them all (or the case has none). */
export const check = (assertions: Assertions, answer: string): Array<typeof AnswerMismatch.Type> => {
  const out: Array<typeof AnswerMismatch.Type> = []
  const haystack = normalise(answer)
  for (const phrase of assertions.answer_contains ?? []) {
    if (!haystack.includes(normalise(phrase))) out.push(AnswerMismatch.make({ rule: "answer_contains", expected: phrase, answer }))
  }
  if (assertions.answer_matches !== undefined) {
    const pattern = compile(assertions.answer_matches)
    // The case's schema refused a pattern that does not compile; a case built past it fails here rather than passing.
    if (typeof pattern === "string" || !pattern.test(answer)) out.push(AnswerMismatch.make({ rule: "answer_matches", expected: assertions.answer_matches, answer }))
  }
  if (assertions.answer_equals !== undefined && assertions.answer_equals.trim() !== answer.trim()) {
    out.push(AnswerMismatch.make({ rule: "answer_equals", expected: assertions.answer_equals, answer }))
  }
  if (assertions.answer_max_chars !== undefined && length(answer) > assertions.answer_max_chars) {
    out.push(AnswerMismatch.make({ rule: "answer_max_chars", expected: assertions.answer_max_chars, answer }))
  }
  return out
}

/** One line for a mismatch; `show` cuts a long answer. */
export const describe = (mismatch: typeof AnswerMismatch.Type, show: (value: unknown) => string): string => {
  switch (mismatch.rule) {
    case "answer_contains":
      return `the answer does not contain ${JSON.stringify(mismatch.expected)} (case-insensitive); answer: ${show(mismatch.answer)}`
    case "answer_matches":
      return `the answer does not match ${String(mismatch.expected)}; answer: ${show(mismatch.answer)}`
    case "answer_equals":
      return `the answer is not ${show(mismatch.expected)}; answer: ${show(mismatch.answer)}`
    case "answer_max_chars":
      return `the answer has ${length(mismatch.answer)} characters, more than answer_max_chars ${mismatch.expected}; answer: ${show(mismatch.answer)}`
  }
}
