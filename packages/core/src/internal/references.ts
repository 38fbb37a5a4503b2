/**
 * The `$ref` graph of a JSON Schema's definitions, for the dialects that inline references: which definition a
 * reference names, and which definitions reach themselves (those cannot be inlined). A schema comes from a file or an
 * MCP server, so both walks take time in proportion to its size and hold no stack in proportion to its depth: a
 * definition nested thousands of levels deep, or thousands of definitions in a chain, are read like any other.
 */
import { isPlainObject } from "../Json.js"

/** The definition a local reference (`#/$defs/Name`, `#/definitions/Name`) names, JSON-Pointer escapes decoded. */
export const refName = (ref: string): string | undefined => {
  // Stryker disable next-line Regex: without the final $ the greedy (.+) still takes the rest of the reference
  const match = /^#\/(?:\$defs|definitions)\/(.+)$/.exec(ref)
  // Stryker disable next-line OptionalChaining: a match always has its one group
  return match?.[1]?.replace(/~1/g, "/").replace(/~0/g, "~")
}

/** The names of the definitions `schema` refers to anywhere inside it. */
const refsIn = (schema: unknown): Set<string> => {
  const names = new Set<string>()
  const pending: Array<unknown> = [schema]
  while (pending.length > 0) {
    const node = pending.pop()
    // One at a time: an array of a few hundred thousand items would overflow the stack as the arguments of one push.
    if (Array.isArray(node)) for (const item of node) pending.push(item)
    else if (isPlainObject(node)) {
      for (const [key, value] of Object.entries(node)) {
        const name = key === "$ref" && typeof value === "string" ? refName(value) : undefined
        if (name !== undefined) names.add(name)
        else pending.push(value)
      }
    }
  }
  return names
}

/**
 * Definitions that reach themselves through references: the members of a strongly connected component of more than
 * one definition, and those that refer to themselves. Tarjan's algorithm, with its depth-first search kept on an
 * explicit stack: one visit of each definition and each reference, where following every definition's references
 * anew took time in the square of a chain's length.
 */
export const recursiveDefinitions = (definitions: Readonly<Record<string, unknown>>): Set<string> => {
  const edges = new Map<string, ReadonlyArray<string>>()
  for (const [name, schema] of Object.entries(definitions)) {
    edges.set(name, [...refsIn(schema)].filter((target) => Object.hasOwn(definitions, target)))
  }
  const order = new Map<string, number>()
  const lowest = new Map<string, number>()
  // Stryker disable next-line ArrayDeclaration: a component is cut from a definition the search pushed, so what lies below it is never read
  const component: Array<string> = []
  const inComponent = new Set<string>()
  const recursive = new Set<string>()
  const enter = (name: string) => {
    order.set(name, order.size)
    lowest.set(name, order.size - 1)
    component.push(name)
    inComponent.add(name)
    return { name, targets: edges.get(name)!, next: 0 }
  }
  for (const start of edges.keys()) {
    // Stryker disable next-line ConditionalExpression: a definition already reached is finished; searched again, it only meets finished ones and changes nothing
    if (order.has(start)) continue
    const path = [enter(start)]
    while (path.length > 0) {
      const frame = path[path.length - 1]!
      if (frame.next < frame.targets.length) {
        const target = frame.targets[frame.next++]!
        if (!order.has(target)) path.push(enter(target))
        else if (inComponent.has(target)) lowest.set(frame.name, Math.min(lowest.get(frame.name)!, order.get(target)!))
        continue
      }
      path.pop()
      const parent = path[path.length - 1]
      if (parent !== undefined) lowest.set(parent.name, Math.min(lowest.get(parent.name)!, lowest.get(frame.name)!))
      if (lowest.get(frame.name) !== order.get(frame.name)) continue
      const members = component.splice(component.lastIndexOf(frame.name))
      for (const member of members) inComponent.delete(member)
      if (members.length > 1 || frame.targets.includes(frame.name)) for (const member of members) recursive.add(member)
    }
  }
  return recursive
}
