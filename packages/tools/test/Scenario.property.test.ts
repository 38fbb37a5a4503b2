/**
 * Scenario files over generated parameters: `properties` and `required` with any names, the names of Object's own
 * members among them (`__proto__`, `constructor`, `toString`), which a membership test on a plain object, or an
 * assignment, gets wrong. Each property is read under its own name (`__proto__`, which no YAML key may be, is
 * refused where it stands); a required name is accepted exactly when it is a property; and a scenario's parameters
 * differ from an implementation's by exactly the names one has and the other lacks.
 */
import { describe, expect, it } from "@effect/vitest"
import { Either, FastCheck as fc } from "effect"
import * as Scenario from "../src/Scenario.js"
import { diff } from "../src/internal/schemaDiff.js"

const objectMembers = ["__proto__", "constructor", "toString", "hasOwnProperty", "valueOf", "isPrototypeOf"] as const
const name = fc.oneof(fc.constantFrom(...objectMembers), fc.stringMatching(/^[a-z_]{1,8}$/))
const names = fc.uniqueArray(name, { maxLength: 7 })

/** An object with these own keys: `__proto__` among them is a key, as YAML and JSON.parse make it. */
const objectOf = (entries: ReadonlyArray<readonly [string, unknown]>): Record<string, unknown> => Object.fromEntries(entries)
const parametersOf = (properties: ReadonlyArray<string>, required: ReadonlyArray<string>) =>
  objectOf([
    ["type", "object"],
    ["properties", objectOf(properties.map((property) => [property, { type: "string" }]))],
    ["required", required]
  ])

/** A scenario file declaring one function with these parameters (JSON is YAML's flow style). */
const scenarioWith = (parameters: unknown) =>
  `---\nname: generated\ndescription: Generated parameters\navailable_functions:\n  - name: act\n    description: Acts\n    parameters: ${JSON.stringify(parameters)}\n---\nAct.\n`

const sorted = (values: Iterable<string>) => [...values].sort()

describe("Scenario files, property-based: parameters named like Object's members", () => {
  it.prop(
    "every property is read under its own name, and a required name is accepted exactly when it is a property (any other is refused, named)",
    [names, names],
    ([properties, required]) => {
      const parsed = Scenario.parse(scenarioWith(parametersOf(properties, required)), "generated.md", {})
      const unknown = required.filter((entry) => !properties.includes(entry))
      if (properties.includes("__proto__")) {
        // The one key YAML files may not hold at all (yamlSource): refused where it stands, never dropped.
        expect(Either.isLeft(parsed) && [parsed.left.field, parsed.left.reason]).toEqual([
          "available_functions[0].parameters.properties.__proto__",
          'the key "__proto__" is not allowed here: it names a member of every JavaScript object, so it would not be read as written'
        ])
      } else if (unknown.length === 0) {
        const [declared] = Either.getOrThrow(parsed).functions
        const read = declared!.parameters.properties as object
        expect(sorted(Object.keys(read))).toEqual(sorted(properties))
        for (const property of properties) expect(Object.hasOwn(read, property), property).toBe(true)
        expect(declared!.parameters.required).toEqual(required)
      } else {
        expect(Either.isLeft(parsed) && parsed.left.reason).toBe(
          `lists ${unknown.map((entry) => JSON.stringify(entry)).join(", ")}, which ${unknown.length === 1 ? "is not a property" : "are not properties"}`
        )
      }
    }
  )

  it.prop(
    "a declaration and an implementation differ by exactly the names one has and the other lacks, and by the required names they share",
    [names, names, names, names],
    ([declaredNames, implementedNames, declaredRequired, implementedRequired]) => {
      const required = (all: ReadonlyArray<string>, chosen: ReadonlyArray<string>) => chosen.filter((entry) => all.includes(entry))
      // Closed (additionalProperties: false): an implementation with no properties that admits any is an untyped
      // function, which accepts whatever is declared.
      const differences = diff(parametersOf(declaredNames, required(declaredNames, declaredRequired)), {
        ...parametersOf(implementedNames, required(implementedNames, implementedRequired)),
        additionalProperties: false
      })
      const shared = declaredNames.filter((entry) => implementedNames.includes(entry))
      const mismatched = shared.filter((entry) => declaredRequired.includes(entry) !== implementedRequired.includes(entry))
      expect(sorted(differences)).toEqual(
        sorted([
          ...declaredNames.filter((entry) => !implementedNames.includes(entry)).map((entry) => `parameter "${entry}" is declared, but the implementation has no such parameter`),
          ...implementedNames.filter((entry) => !declaredNames.includes(entry)).map((entry) => `parameter "${entry}" of the implementation is not declared`),
          ...mismatched.map((entry) => {
            const declared = declaredRequired.includes(entry) ? "required" : "optional"
            const implemented = implementedRequired.includes(entry) ? "required" : "optional"
            return `parameter "${entry}" is ${declared} in the declaration but ${implemented} in the implementation`
          })
        ])
      )
    }
  )
})
