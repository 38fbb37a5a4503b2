/**
 * Eval case files (YAML). A file holds one case (a mapping), a list of cases, or several `---` documents.
 *
 * ```yaml
 * id: valid-warranty-two-serials
 * description: The customer gives two serial numbers
 * tags: [smoke, warranty]                      # optional: to select cases by (`agentfx eval --tag smoke`)
 * input: |
 *   From: ada@example.com
 *   Subject: Broken kettles
 *   ...
 * scenario: valid-warranty                     # the scenario the input should be handled as
 * mock_function_responses:                     # per function: one outcome, or a list: the first entry whose
 *   check_warranty:                            #   `when` the arguments contain answers
 *     - when: { serial_number: SN-1 }          # optional: matches when the arguments contain these
 *       response: { valid: true, expires: 2026-01-01 }
 *     - response: { valid: false }             # no `when`: the fallback, so it comes last
 *   create_ticket:
 *     response: { ticket_id: T-100 }
 *   send_email:
 *     error: mail server unavailable           # a string, or an object with a `message`
 * expected_function_calls:                     # every call, in order
 *   - function_name: check_warranty
 *     arguments: { serial_number: SN-1 }       # exact
 *   - function_name: create_ticket
 *     arguments_contain: { serial_number: SN-1 }   # partial
 *     result_contains: { ticket_id: T-100 }        # partial, on the response the model got
 *   - function_name: send_email
 *     body_contains: [T-100, warranty]         # phrases of the `body` argument, case-insensitive
 * answer_contains: [T-100]                     # optional checks on the final answer: phrases (case-insensitive),
 * answer_matches: /ticket T-\d+/i              #   a regular expression (at most 1,000 characters),
 * answer_max_chars: 400                        #   a bound on its length; answer_equals: the whole answer
 * judge: The reply names the ticket             # optional: rubrics graded by a model (see EvalJudge)
 * expected_output:                             # optional: the run's decoded final answer (a run given `output`),
 *   category: repair                           #   partial like arguments_contain: every field named must match,
 *   ticketIds: [T-100]                         #   each mismatch reported with its path
 * mode: live                                   # optional: run as a Live session (default: the scenario's mode);
 *                                              #   its answer_* and judge check the text of its answers, one per line,
 *                                              #   and expected_output is refused (a Live session gives no typed answer)
 * follow_up: [And the kitchen?]                # optional, Live only: further messages, each after the last answer
 * ```
 *
 * Unknown fields are errors (a typo must not silently weaken a case), except top-level keys starting with
 * `x-`, kept in `extensions` for tools that store their own data with a case (e.g. a recorded cassette). So are
 * checks that could never fail or mocks that could never answer: an empty `body_contains` phrase (every body
 * contains it) or list, and a mock entry listed after one that answers every call it would match.
 *
 * @since 0.1.0
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import * as NodePath from "node:path"
import { Json, Telemetry } from "@agentfx/core"
import * as EvalJudge from "./EvalJudge.js"
import * as AnswerAssertions from "./internal/answerAssertions.js"
import * as BoundedText from "./internal/boundedText.js"
import { contains, show } from "./internal/jsonValue.js"
import * as YamlSource from "./internal/yamlSource.js"

/**
 * A case file cannot be read, is not valid YAML, or a field is invalid.
 *
 * @since 0.1.0
 * @category errors
 */
export class EvalCaseError extends Schema.TaggedError<EvalCaseError>()("EvalCaseError", {
  file: Schema.String,
  line: Schema.optional(Schema.Number),
  /** The id of the case the problem is in, when the case has one. */
  caseId: Schema.optional(Schema.String),
  field: Schema.optional(Schema.String),
  reason: Schema.String
}) {
  override get message(): string {
    const which = this.caseId === undefined ? "" : `case "${this.caseId}": `
    return `${YamlSource.where(this.file, this.line)}: ${which}${this.field === undefined ? "" : `${this.field}: `}${this.reason}`
  }
}

/**
 * Two cases share an id.
 *
 * @since 0.1.0
 * @category errors
 */
export class DuplicateCaseId extends Schema.TaggedError<DuplicateCaseId>()("DuplicateCaseId", {
  id: Schema.String,
  files: Schema.Array(Schema.String)
}) {
  override get message(): string {
    return `the case id "${this.id}" is used twice: ${this.files.join(" and ")}`
  }
}

/**
 * One mock outcome: a `response` to return or an `error` to raise, for arguments that contain `when` (any, without one).
 *
 * @since 0.1.0
 */
export const MockResponse = Schema.Struct({
  when: Schema.optional(Json.JsonObject),
  response: Schema.optionalWith(Schema.Unknown, { exact: true }),
  error: Schema.optional(Schema.Union(Schema.String, Json.JsonObject))
}).pipe(
  Schema.filter((entry) => {
    const responds = Object.hasOwn(entry, "response")
    if (responds && entry.error !== undefined) return "give either `response` or `error`, not both"
    return responds || entry.error !== undefined || "give a `response` to return or an `error` to raise"
  })
)
/**
 * One mock outcome, decoded (the type of the `MockResponse` schema).
 *
 * @since 0.1.0
 * @category models
 */
export type MockResponse = typeof MockResponse.Type

const isList = (value: MockResponse | readonly [MockResponse, ...Array<MockResponse>]): value is readonly [MockResponse, ...Array<MockResponse>] =>
  Array.isArray(value)

/**
 * Why the entry at `index` can never answer, if it cannot: the first entry whose `when` the arguments contain
 * answers, so an earlier entry whose `when` this one's contains (no `when` is contained in any) answers first
 * every call this one matches. (Containment is transitive, so that earlier entry always matches.)
 */
const deadEntry = (entries: ReadonlyArray<MockResponse>, index: number): string | undefined => {
  const when = entries[index]!.when ?? {}
  const earlier = entries.findIndex((entry, i) => i < index && contains(entry.when ?? {}, when))
  if (earlier === -1) return undefined
  const shadow = entries[earlier]!.when
  return shadow === undefined
    ? `this entry is never used: entry [${earlier}] has no \`when\`, so it answers every call first`
    : `this entry is never used: entry [${earlier}] answers first every call it matches (its \`when\` ${show(shadow, 200)} is contained in this one's)`
}

/** Per function, a single outcome or a list; always a list once decoded. An entry that can never answer is refused. */
const MockResponses = Schema.transform(
  Schema.Union(MockResponse, Schema.NonEmptyArray(MockResponse)),
  Schema.NonEmptyArray(Schema.typeSchema(MockResponse)),
  {
    strict: true,
    decode: (value): readonly [MockResponse, ...Array<MockResponse>] => (isList(value) ? value : [value]),
    encode: (list) => list
  }
).pipe(
  Schema.filter((entries) =>
    entries.flatMap((_, index) => {
      const reason = deadEntry(entries, index)
      return reason === undefined ? [] : [{ path: [index], message: reason }]
    })
  )
)

// Every body contains the empty phrase: a blank one would pass whatever the agent wrote.
const Phrase = Schema.String.pipe(Schema.filter((phrase) => /\S/.test(phrase) || "an empty phrase is in every body: give the words to look for"))

// An empty list checks nothing either: refused in a file, like a blank phrase (in code, `[]` still means no check).
const PhraseList = Schema.Array(Phrase).pipe(Schema.minItems(1, { message: () => "the list is empty: give the words to look for, or leave body_contains out" }))
const Phrases = Schema.transform(Schema.Union(Phrase, PhraseList), Schema.Array(Schema.String), {
  strict: true,
  decode: (value) => (typeof value === "string" ? [value] : value),
  encode: (list) => list
})

/**
 * Per function, its mock entries, as `mock_function_responses` (and a mocks file, see `Mocks`) hold them.
 *
 * @since 0.3.0
 * @category schemas
 */
export const MockFunctionResponses = Schema.Record({ key: Schema.String, value: MockResponses })

/**
 * One expected call.
 *
 * @since 0.1.0
 */
export const ExpectedCall = Schema.Struct({
  function_name: Schema.NonEmptyString,
  arguments: Schema.optional(Json.JsonObject),
  arguments_contain: Schema.optional(Json.JsonObject),
  result_contains: Schema.optional(Json.JsonObject),
  body_contains: Schema.optional(Phrases)
})
/**
 * One expected call, decoded (the type of the `ExpectedCall` schema).
 *
 * @since 0.1.0
 * @category models
 */
export type ExpectedCall = typeof ExpectedCall.Type

// An empty object is contained in every output: it would pass whatever the agent answered.
const ExpectedOutput = Schema.Unknown.pipe(
  Schema.filter((value) => !(Json.isPlainObject(value) && Object.keys(value).length === 0) || "an empty object is in every output: name the fields to check, or leave expected_output out")
)

/**
 * A case as written in its file (`mock_function_responses` and `body_contains` normalised to lists).
 *
 * @since 0.1.0
 */
export const CaseFields = Schema.Struct({
  id: Schema.NonEmptyString,
  description: Schema.optionalWith(Schema.String, { default: () => "" }),
  /** Words to select the case by (`EvalSelection`, `agentfx eval --tag`). */
  tags: Schema.optional(Schema.Array(Schema.String.pipe(Schema.filter((tag) => /^\S+$/.test(tag) || "a tag is one word: no spaces, not empty")))),
  input: Schema.String,
  scenario: Schema.NonEmptyString,
  mock_function_responses: Schema.optionalWith(MockFunctionResponses, { default: () => ({}) }),
  expected_function_calls: Schema.Array(ExpectedCall),
  ...AnswerAssertions.fields,
  ...EvalJudge.fields,
  /** The decoded final answer expected of a run given `output`: partial, like `arguments_contain`. */
  expected_output: Schema.optionalWith(ExpectedOutput, { exact: true }),
  /** `live`: the case is a Live session (the runner's `live` model); default its scenario's `mode`, else `rest`. */
  mode: Schema.optional(Schema.Literal("rest", "live")),
  /** A Live case's further user messages, each sent once the one before was answered. */
  follow_up: Schema.optional(Schema.Array(Schema.String))
})

/**
 * An eval case, with where it came from.
 *
 * @since 0.1.0
 * @category models
 */
export interface EvalCase extends Schema.Schema.Type<typeof CaseFields> {
  /** The file it was read from (`<inline>` for cases built in code). */
  readonly file: string
  readonly line?: number | undefined
  /**
   * The file's line of a path inside the case (of its nearest ancestor when the path is not there), x- keys
   * included: for tools that check their own data after loading (e.g. a cassette). Cases built in code have no lines.
   */
  readonly lineOf?: ((path: ReadonlyArray<PropertyKey>) => number | undefined) | undefined
  /** Top-level `x-` keys of the case, untouched. */
  readonly extensions: Readonly<Record<string, unknown>>
}

const errorOf = (file: string, caseId?: string) => (problem: YamlSource.Problem): EvalCaseError =>
  new EvalCaseError({
    file,
    reason: problem.reason,
    ...(problem.line === undefined ? {} : { line: problem.line }),
    ...(caseId === undefined ? {} : { caseId }),
    ...(problem.field === undefined ? {} : { field: problem.field })
  })

type Problems = readonly [EvalCaseError, ...Array<EvalCaseError>]

/** The case at `path` of a document, or every problem it has. */
const fromSource = (source: YamlSource.Source, path: ReadonlyArray<number>, file: string): Either.Either<EvalCase, Problems> => {
  const value = path.reduce<unknown>((node, index) => (Array.isArray(node) ? node[index] : undefined), source.value)
  const line = source.lineOf(path)
  if (!Json.isPlainObject(value)) {
    return Either.left([errorOf(file)({ line, reason: "a case must be a YAML mapping with id, input, scenario and expected_function_calls" })])
  }
  // Problems name the case when its id can be read, so two cases of one file are told apart.
  const fail = errorOf(file, typeof value.id === "string" && value.id !== "" ? value.id : undefined)
  const extensions: Record<string, unknown> = {}
  const fields: Record<string, unknown> = {}
  for (const [key, field] of Object.entries(value)) (key.startsWith("x-") ? extensions : fields)[key] = field
  const lineOf = (inner: ReadonlyArray<PropertyKey>) => source.lineOf([...path, ...inner])
  const textOf = (inner: ReadonlyArray<PropertyKey>) => source.textOf([...path, ...inner])
  return Either.flatMap(
    Either.mapLeft(YamlSource.decodeAll(CaseFields, { value: fields, lineOf, textOf }), ([first, ...rest]): Problems => [fail(first), ...rest.map(fail)]),
    (decoded): Either.Either<EvalCase, Problems> =>
      // A check that could never pass: a Live session answers in text, and only a run given `output` decodes one.
      decoded.mode === "live" && Object.hasOwn(decoded, "expected_output")
        ? Either.left([fail({ line: lineOf(["expected_output"]), field: "expected_output", reason: `a Live session ${liveGivesText}` })])
        : Either.right({ ...decoded, file, line, lineOf, extensions })
  )
}

/**
 * Why `expected_output` cannot be checked on a Live case (`mode: live`, its own or its scenario's), after what says it runs live.
 *
 * @since 0.3.0
 */
export const liveGivesText = "gives text, not a typed answer: check its text with answer_* or judge instead"

/** The first of a case's problems, saying how many more it has. */
const firstOf = ([first, ...rest]: Problems): EvalCaseError =>
  rest.length === 0 ? first : new EvalCaseError({ ...first, reason: `${first.reason} (and ${rest.length} more problem${rest.length > 1 ? "s" : ""})` })

/**
 * Parses a case file's text: one case, a list of cases, or several documents.
 *
 * @since 0.1.0
 */
export const parse = (text: string, file: string): Either.Either<ReadonlyArray<EvalCase>, EvalCaseError | DuplicateCaseId> =>
  Either.gen(function* () {
    const sources = yield* Either.mapLeft(YamlSource.parseAll(text), errorOf(file))
    const cases: Array<EvalCase> = []
    for (const source of sources) {
      const paths = Array.isArray(source.value) ? source.value.map((_, i) => [i]) : [[]]
      for (const path of paths) cases.push(yield* Either.mapLeft(fromSource(source, path, file), firstOf))
    }
    if (cases.length === 0) return yield* Either.left(new EvalCaseError({ file, reason: "the file holds no case" }))
    return yield* checkUnique(cases)
  })

/**
 * A case built in code (generated suites, benchmarks), checked like a file's.
 *
 * @since 0.1.0
 */
export const make = (fields: Schema.Schema.Encoded<typeof CaseFields>, file = "<inline>"): Either.Either<EvalCase, EvalCaseError> =>
  Either.mapLeft(fromSource({ value: fields, lineOf: () => undefined, textOf: () => undefined }, [], file), firstOf)

/**
 * A case file read case by case: the cases that are sound, and every problem of the others (each case's every
 * problem, with its line, field and case id). Ids are not compared: a suite of several files compares them all.
 *
 * @since 0.2.0
 * @category models
 */
export interface Parsed {
  readonly cases: ReadonlyArray<EvalCase>
  readonly problems: ReadonlyArray<EvalCaseError>
}

/**
 * Parses a case file's text as `parse` does, but a case with problems does not hide the others: every problem of
 * every case is given, and the sound cases with them. A file that is not valid YAML has its first syntax problem.
 *
 * @since 0.2.0
 */
export const parseEach = (text: string, file: string): Parsed => {
  const sources = YamlSource.parseAll(text)
  if (Either.isLeft(sources)) return { cases: [], problems: [errorOf(file)(sources.left)] }
  const cases: Array<EvalCase> = []
  const problems: Array<EvalCaseError> = []
  for (const source of sources.right) {
    const paths = Array.isArray(source.value) ? source.value.map((_, i) => [i]) : [[]]
    for (const path of paths) {
      Either.match(fromSource(source, path, file), { onLeft: (all) => problems.push(...all), onRight: (evalCase) => cases.push(evalCase) })
    }
  }
  if (cases.length === 0 && problems.length === 0) problems.push(new EvalCaseError({ file, reason: "the file holds no case" }))
  return { cases, problems }
}

const checkUnique = (cases: ReadonlyArray<EvalCase>): Either.Either<ReadonlyArray<EvalCase>, DuplicateCaseId> => {
  const seen = new Map<string, EvalCase>()
  for (const evalCase of cases) {
    const twin = seen.get(evalCase.id)
    const at = (c: EvalCase) => YamlSource.where(c.file, c.line)
    if (twin !== undefined) return Either.left(new DuplicateCaseId({ id: evalCase.id, files: [at(twin), at(evalCase)] }))
    seen.set(evalCase.id, evalCase)
  }
  return Either.right(cases)
}

/**
 * Limits on reading case files.
 *
 * @since 0.1.0
 * @category models
 */
export interface LoadOptions {
  /** Largest case file read (default 4 MiB); larger ones, and anything not a regular file, are refused unread. */
  readonly maxBytes?: number
}

/**
 * Reads and parses one case file.
 *
 * @since 0.1.0
 */
export const load = (file: string, options: LoadOptions = {}): Effect.Effect<ReadonlyArray<EvalCase>, EvalCaseError | DuplicateCaseId, FileSystem.FileSystem> =>
  Telemetry.span("EvalCase.load", { file }, () =>
    Effect.gen(function* () {
      const text = yield* Effect.mapError(BoundedText.read(file, options.maxBytes ?? BoundedText.defaultMaxBytes), (reason) => new EvalCaseError({ file, reason }))
      return yield* parse(text, file)
    })
  )

/**
 * Reads one case file and parses it case by case (`parseEach`); a file that cannot be read is its one problem.
 *
 * @since 0.2.0
 */
export const loadEach = (file: string, options: LoadOptions = {}): Effect.Effect<Parsed, never, FileSystem.FileSystem> =>
  Telemetry.span("EvalCase.load", { file }, () =>
    Effect.match(BoundedText.read(file, options.maxBytes ?? BoundedText.defaultMaxBytes), {
      onFailure: (reason): Parsed => ({ cases: [], problems: [new EvalCaseError({ file, reason })] }),
      onSuccess: (text) => parseEach(text, file)
    })
  )

/**
 * Every `*.yaml` / `*.yml` file under `directory` (recursively, sorted by path); case ids must be unique.
 *
 * @since 0.1.0
 */
export const loadDirectory = (directory: string, options: LoadOptions = {}): Effect.Effect<ReadonlyArray<EvalCase>, EvalCaseError | DuplicateCaseId, FileSystem.FileSystem> =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const names = yield* Effect.mapError(
      fs.readDirectory(directory, { recursive: true }),
      (error) => new EvalCaseError({ file: directory, reason: `the case directory cannot be read: ${error.message}` })
    )
    const files = names.filter((name) => /\.ya?ml$/i.test(name)).map((name) => NodePath.join(directory, name)).sort()
    const cases: Array<EvalCase> = []
    for (const file of files) cases.push(...(yield* load(file, options)))
    return yield* checkUnique(cases)
  })
