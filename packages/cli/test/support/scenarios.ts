/** Scenario files the CLI's eval tests write: one calculator function, so a case's expected calls are easy to state. */

/** `math`: the calculator, declared with one required string argument `expression`; `instructions` its body. */
export const mathScenarioWith = (instructions: string): string => `---
name: math
description: Arithmetic
available_functions:
  - name: calculator
    description: Evaluates an arithmetic expression
    parameters:
      type: object
      properties:
        expression: { type: string }
      required: [expression]
---
${instructions}
`

/** `math` with the instructions "Compute with the calculator." */
export const mathScenario = mathScenarioWith("Compute with the calculator.")
