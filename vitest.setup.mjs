/**
 * What `toEqual` compares for our errors. Effect's tagged errors (Schema.TaggedError, Data.TaggedError) keep
 * `message` as a non-enumerable property of the Error, and `toEqual` compares enumerable fields only: two errors of
 * one tag with different messages were equal, and a test that said which message it expected checked none.
 * Here such errors are equal when their tag, their message and their other fields are.
 *
 * Plain JavaScript: a TypeScript file at the root would be compiled against the root tsconfig, whose references
 * the mutation sandbox leaves out.
 */
import { expect } from "vitest"

const isTagged = (value) => value instanceof Error && typeof value._tag === "string"

expect.addEqualityTesters([
  function taggedErrors(a, b, customTesters) {
    if (!isTagged(a) || !isTagged(b)) return undefined
    return a._tag === b._tag && a.message === b.message && this.equals({ ...a }, { ...b }, customTesters)
  }
])
