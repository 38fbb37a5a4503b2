/**
 * What `toEqual` compares for our errors. Effect's tagged errors (Schema.TaggedError, Data.TaggedError) keep
 * `message` as a non-enumerable property of the Error, and `toEqual` compares enumerable fields only: two errors of
 * one tag with different messages were equal, and a test that said which message it expected checked none.
 * Here such errors are equal when their tag, their message and their other fields are.
 */
import { expect } from "vitest"

const isTagged = (value: unknown): value is Error & { readonly _tag: string } =>
  value instanceof Error && typeof (value as { _tag?: unknown })._tag === "string"

expect.addEqualityTesters([
  function taggedErrors(a: unknown, b: unknown, customTesters) {
    if (!isTagged(a) || !isTagged(b)) return undefined
    return a._tag === b._tag && a.message === b.message && this.equals({ ...a }, { ...b }, customTesters)
  }
])
