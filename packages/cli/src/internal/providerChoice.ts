/**
 * Which provider the environment chooses, and the emulator's announcement, as plain functions of the variables:
 * `Provider.choose` reads the variables through Effect's `Config`, and the executable reads `process.env` to show
 * a chat's first screen before Effect is loaded (see `earlyScreen.ts`). One rule for both, so they cannot disagree.
 */
import type { providerNames } from "../commands/options.js"

export type Name = (typeof providerNames)[number]

/** The provider and why it was chosen (a flag, or which variable was set). */
export interface Choice {
  readonly name: Name
  readonly reason: string
}

/** Each real provider's key variables, in the order they are looked at. */
export const keyVariables: Record<Exclude<Name, "emulator">, ReadonlyArray<string>> = {
  gemini: ["GEMINI_API_KEY", "GOOGLE_API_KEY"],
  glm: ["ZAI_API_KEY"],
  "glm-coding": ["ZAI_API_KEY"],
  openai: ["OPENAI_API_KEY"]
}

/** Every key variable, in the order the environment is searched. */
export const allKeys: ReadonlyArray<string> = ["GEMINI_API_KEY", "GOOGLE_API_KEY", "ZAI_API_KEY", "OPENAI_API_KEY"]

/** A variable's value (`undefined` when it is not present at all). */
export type Lookup = (variable: string) => string | undefined

const isSet = (value: string | undefined): boolean => value !== undefined && value.trim() !== ""

/**
 * `--provider` when given; else Gemini when GEMINI_API_KEY or GOOGLE_API_KEY holds a value, then GLM (ZAI_API_KEY),
 * then OpenAI (OPENAI_API_KEY); else the emulator, saying which variables were present but blank.
 */
export const choose = (flag: Name | undefined, lookup: Lookup): Choice => {
  if (flag !== undefined) return { name: flag, reason: "--provider" }
  for (const name of ["gemini", "glm", "openai"] as const) {
    const variable = keyVariables[name].find((key) => isSet(lookup(key)))
    if (variable !== undefined) return { name, reason: `${variable} is set` }
  }
  const blank = allKeys.filter((variable) => lookup(variable) !== undefined)
  const empty = blank.length === 0 ? "" : `${blank.join(", ")} ${blank.length === 1 ? "is" : "are"} empty; `
  return { name: "emulator", reason: `no API key is set (${empty}${allKeys.join(", ")})` }
}

/** The emulator's one-line announcement; `answers` names a cassette it replays instead of the offline rule model. */
export const describeEmulator = (choice: Choice, answers?: string): string => {
  // A flag chose it (--provider, or eval's "chosen with --judge-provider"), or no key is set: then how to use a real model.
  const why =
    choice.reason === "--provider"
      ? "Chosen with --provider"
      : choice.reason.startsWith("no ")
        ? `No${choice.reason.slice(2)}: set one to use a real model`
        : `C${choice.reason.slice(1)}`
  const source = answers === undefined ? "the offline rule model, in-process on 127.0.0.1" : `replays ${answers} offline`
  return `provider: emulator — ${source} through the Gemini provider, no network. ${why}.`
}
