/**
 * Append-only arrays with immutable snapshots, so that a list that only grows (a transcript, the requests a
 * scripted model saw) costs O(new items) per append instead of a copy of everything so far.
 *
 * A snapshot is a real readonly array to whoever reads it (`Array.isArray`, `length`, indexes, for-of, spread,
 * JSON, Schema encoding and deep equality all work) but is a view: a Proxy that shows the first `length` items of
 * a backing array shared with later snapshots. The backing array is only ever pushed to, so what a snapshot shows
 * never changes; the view refuses writes.
 *
 * Appending to the newest snapshot of a backing array pushes in place. Appending to any other array (a plain
 * array, or an older snapshot that someone else has already appended to) first copies it into a new backing
 * array, once: branches stay correct, and only the linear case, which is the loop's, is free.
 */

/** Where a view keeps its backing array and length; module-private, so no other object can pass for a view. */
const backingKey: unique symbol = Symbol("agentfx/appendOnly/backing")
const sizeKey: unique symbol = Symbol("agentfx/appendOnly/size")

interface Target {
  [backingKey]: Array<unknown>
  [sizeKey]: number
}

/** The index an own-property key names, or -1 ("01", "-0", "1.5" and "4294967295" are not indexes). */
const indexOf = (key: string | symbol): number => {
  if (typeof key !== "string") return -1
  const first = key.charCodeAt(0)
  // Stryker disable next-line ConditionalExpression,LogicalOperator: a fast path; the round trip below refuses every key that does not start with a digit
  if (first < 48 || first > 57) return -1
  const n = Number(key)
  if (!Number.isInteger(n) || String(n) !== key) return -1
  // Stryker disable next-line ConditionalExpression,EqualityOperator: no view holds 2^32 - 1 items, so a larger index reads as missing either way
  return n < 4294967295 ? n : -1
}

const handler: ProxyHandler<Array<unknown> & Target> = {
  get(target, key, receiver) {
    if (key === "length") return target[sizeKey]
    const index = indexOf(key)
    if (index !== -1) return index < target[sizeKey] ? target[backingKey][index] : undefined
    return Reflect.get(target, key, receiver)
  },
  has(target, key) {
    // Stryker disable next-line ConditionalExpression,EqualityOperator: a shortcut; the target is an array, which has a length too
    if (key === "length") return true
    const index = indexOf(key)
    if (index !== -1) return index < target[sizeKey]
    // Stryker disable next-line ConditionalExpression,LogicalOperator: the two keys are module-private symbols, which no code outside can ask for
    return key !== backingKey && key !== sizeKey && Reflect.has(target, key)
  },
  ownKeys(target) {
    const keys: Array<string> = []
    for (let i = 0; i < target[sizeKey]; i++) keys.push(String(i))
    keys.push("length")
    return keys
  },
  getOwnPropertyDescriptor(target, key) {
    // `length` is non-configurable on the (empty) target, so it must be reported as such; its value may differ
    // because the target's length is writable. Indexes are reported read-only.
    if (key === "length") return { value: target[sizeKey], writable: true, enumerable: false, configurable: false }
    const index = indexOf(key)
    if (index !== -1 && index < target[sizeKey]) {
      return { value: target[backingKey][index], writable: false, enumerable: true, configurable: true }
    }
    return undefined
  },
  // Stryker disable ArrowFunction: a trap's result is read as a boolean, so one returning undefined refuses too
  set: () => false,
  defineProperty: () => false,
  deleteProperty: () => false,
  setPrototypeOf: () => false,
  preventExtensions: () => false
  // Stryker restore ArrowFunction
}

const view = <A>(backing: Array<A>, size: number): ReadonlyArray<A> => {
  const target = [] as unknown as Array<unknown> & Target
  target[backingKey] = backing
  target[sizeKey] = size
  return new Proxy(target, handler) as unknown as ReadonlyArray<A>
}

const targetOf = (items: ReadonlyArray<unknown>): Target | undefined => {
  const backing = (items as Partial<Target>)[backingKey]
  return backing === undefined ? undefined : (items as unknown as Target)
}

/** A snapshot of `items` followed by `more`; `items` itself is left unchanged. */
export const append = <A>(items: ReadonlyArray<A>, more: ReadonlyArray<A>): ReadonlyArray<A> => {
  const target = targetOf(items)
  if (target !== undefined && target[backingKey].length === target[sizeKey]) {
    const backing = target[backingKey] as Array<A>
    for (const item of more) backing.push(item)
    return view(backing, backing.length)
  }
  const backing = Array.from(items)
  for (const item of more) backing.push(item)
  return view(backing, backing.length)
}

/** `items` as a snapshot (copied once unless it already is one), so later appends to it are O(1). */
export const from = <A>(items: ReadonlyArray<A>): ReadonlyArray<A> => (targetOf(items) === undefined ? view(Array.from(items), items.length) : items)

/** True when both are snapshots of one backing array: the shorter is then a prefix of the longer. */
export const sameBacking = (a: ReadonlyArray<unknown>, b: ReadonlyArray<unknown>): boolean => {
  const x = targetOf(a)
  const y = targetOf(b)
  return x !== undefined && y !== undefined && x[backingKey] === y[backingKey]
}

/**
 * The backing array of a snapshot that is the newest of its backing (so state kept for that length is still
 * current), or undefined. Used as a key for state that follows a list as it grows.
 */
export const tipOf = (items: ReadonlyArray<unknown>): object | undefined => {
  const target = targetOf(items)
  return target !== undefined && target[backingKey].length === target[sizeKey] ? target[backingKey] : undefined
}
