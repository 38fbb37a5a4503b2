/** Scenario files the CLI's eval tests write: one calculator function, so a case's expected calls are easy to state. */

/** `math`: the calculator, declared with one required string argument `expression`. */
export const mathScenario = `---
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
Compute with the calculator.
`
