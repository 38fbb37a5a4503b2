/**
 * Names every provider accepts for a function (letters, digits, `_` and `-`, starting with a letter or `_`, 64 at
 * most), made from names that may hold anything (MCP tools are named freely), and kept unique: a name that would
 * repeat an earlier one gets `_2`, `_3`, … (cut to fit).
 */
const maxLength = 64

/** `name` with every other character replaced by `_`, a leading digit or `-` guarded, cut to 64. */
export const safeName = (name: string): string => {
  let safe = name.replace(/[^A-Za-z0-9_-]/g, "_")
  // An empty name does not start with a letter or `_` either.
  if (!/^[A-Za-z_]/.test(safe)) safe = `_${safe}`
  return safe.slice(0, maxLength)
}

/** Safe, unique names for `names`, in order. */
export const uniqueNames = (names: ReadonlyArray<string>): ReadonlyArray<string> => {
  const taken = new Set<string>()
  return names.map((name) => {
    const base = safeName(name)
    let candidate = base
    for (let k = 2; taken.has(candidate); k++) {
      const suffix = `_${k}`
      candidate = base.slice(0, maxLength - suffix.length) + suffix
    }
    taken.add(candidate)
    return candidate
  })
}
