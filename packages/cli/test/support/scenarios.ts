/** Scenario files the CLI's eval tests write: one calculator function, so a case's expected calls are easy to state. */

/**
 * A scenario named `name` (`math` unless said) declaring the calculator, with one required string argument
 * `expression` and `parameters`' further lines after `required`; `instructions` its body.
 */
export const calculatorScenario = (options: { readonly instructions: string; readonly name?: string; readonly parameters?: string }): string => `---
name: ${options.name ?? "math"}
description: Arithmetic
available_functions:
  - name: calculator
    description: Evaluates an arithmetic expression
    parameters:
      type: object
      properties:
        expression: { type: string }
      required: [expression]${options.parameters ?? ""}
---
${options.instructions}
`

/** `math`: the calculator, declared with one required string argument `expression`; `instructions` its body. */
export const mathScenarioWith = (instructions: string): string => calculatorScenario({ instructions })

/** `math` with the instructions "Compute with the calculator." */
export const mathScenario = mathScenarioWith("Compute with the calculator.")

/**
 * A case of `math` computing `expression`, checked against one calculator call with it; its cassette calls the
 * calculator with `called` (a different one fails it), then answers "done".
 */
export const calculatorCase = (id: string, expression: string, called: string): string => `- id: ${id}
  scenario: math
  input: what is ${expression}?
  expected_function_calls:
    - function_name: calculator
      arguments: { expression: "${expression}" }
  x-cassette:
    - calls: [{ name: calculator, args: { expression: "${called}" } }]
    - text: done
`
