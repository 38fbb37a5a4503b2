/** The command's errors, in process: each one's tag, exact words and exit code, the defaults of its optional fields, and the guard. */
import { CliError } from "@agentfx/cli"
import { describe, expect, it } from "@effect/vitest"
import * as Schema from "effect/Schema"

const session = { session: "notes.json", lockFile: "notes.json.lock" }
const advice = "quit that chat first, use another --session, or remove notes.json.lock if no agentfx runs there any more"

describe("CliError", () => {
  it("each error has its tag, its exact message and its exit code (2 for what the command was given, 1 for a run that failed, 130 for Ctrl-C)", () => {
    const errors: ReadonlyArray<CliError.CliError> = [
      new CliError.UsageError({ message: "bad flags" }),
      new CliError.InputError({ message: "bad file" }),
      new CliError.ProviderError({ provider: "gemini", message: "no key" }),
      new CliError.ProviderError({ provider: "gemini", message: "key refused", refused: true }),
      new CliError.RunFailed({ message: "model down" }),
      new CliError.OutputError({ message: "cannot write" }),
      new CliError.SessionInUse(session),
      new CliError.BelowThreshold({ passRate: 0.5, threshold: 0.755 }),
      new CliError.EvalStopped({ bail: 1, notRun: 1 }),
      new CliError.Regressed({ baseline: "base.json", ids: ["a"] }),
      new CliError.Interrupted()
    ]
    expect(errors.map((error) => [error._tag, error.message, error.exitCode])).toStrictEqual([
      ["UsageError", "bad flags", 2],
      ["InputError", "bad file", 2],
      ["ProviderError", "no key", 2],
      ["ProviderError", "key refused", 1],
      ["RunFailed", "model down", 1],
      ["OutputError", "cannot write", 1],
      ["SessionInUse", `session notes.json is in use by another process (its lock file cannot be read); ${advice}`, 2],
      ["BelowThreshold", "the pass rate 50 % is below the threshold 75.5 %", 1],
      ["EvalStopped", "the eval stopped after 1 case that did not pass (--bail): 1 case was not run", 1],
      ["Regressed", "1 case passes in base.json and not now: a", 1],
      ["Interrupted", "interrupted", 130]
    ])
    expect([CliError.failed, CliError.usage, CliError.interrupted]).toStrictEqual([1, 2, 130])
  })

  it("a session in use names the holder's pid, then its host and since when, each only when the lock file says it", () => {
    const holders = [
      new CliError.SessionInUse({ ...session, pid: 42 }),
      new CliError.SessionInUse({ ...session, pid: 42, hostname: "box" }),
      new CliError.SessionInUse({ ...session, pid: 42, startedAt: "2026-01-02T03:04:05Z" }),
      new CliError.SessionInUse({ ...session, pid: 42, hostname: "box", startedAt: "2026-01-02T03:04:05Z" })
    ]
    expect(holders.map((error) => error.message)).toStrictEqual([
      `session notes.json is in use by pid 42; ${advice}`,
      `session notes.json is in use by pid 42 on box; ${advice}`,
      `session notes.json is in use by pid 42 since 2026-01-02T03:04:05Z; ${advice}`,
      `session notes.json is in use by pid 42 on box since 2026-01-02T03:04:05Z; ${advice}`
    ])
  })

  it("an eval stopped by --bail and a regression count in the singular for one and in the plural for more", () => {
    expect([
      new CliError.EvalStopped({ bail: 2, notRun: 3 }).message,
      new CliError.EvalStopped({ bail: 1, notRun: 2 }).message,
      new CliError.EvalStopped({ bail: 2, notRun: 1 }).message,
      new CliError.Regressed({ baseline: "base.json", ids: ["a", "b"] }).message
    ]).toStrictEqual([
      "the eval stopped after 2 cases that did not pass (--bail): 3 cases were not run",
      "the eval stopped after 1 case that did not pass (--bail): 2 cases were not run",
      "the eval stopped after 2 cases that did not pass (--bail): 1 case was not run",
      "2 cases pass in base.json and not now: a, b"
    ])
  })

  it("an input error without problems has none, a provider error not said refused is not (constructed and decoded)", () => {
    expect(new CliError.InputError({ message: "bad file" }).problems).toStrictEqual([])
    expect(new CliError.ProviderError({ provider: "gemini", message: "no key" }).refused).toBe(false)
    const input = Schema.decodeUnknownSync(CliError.InputError)({ _tag: "InputError", message: "bad file" })
    const provider = Schema.decodeUnknownSync(CliError.ProviderError)({ _tag: "ProviderError", provider: "gemini", message: "no key" })
    expect([input.problems, input.details, provider.refused, provider.provider, provider.exitCode]).toStrictEqual([[], undefined, false, "gemini", 2])
  })

  it("isCliError holds for every error of the command, and not for a look-alike without the TypeId nor for what is no object", () => {
    const errors = [
      new CliError.UsageError({ message: "m" }),
      new CliError.InputError({ message: "m" }),
      new CliError.ProviderError({ provider: "p", message: "m" }),
      new CliError.RunFailed({ message: "m" }),
      new CliError.OutputError({ message: "m" }),
      new CliError.SessionInUse(session),
      new CliError.BelowThreshold({ passRate: 0, threshold: 1 }),
      new CliError.EvalStopped({ bail: 1, notRun: 0 }),
      new CliError.Regressed({ baseline: "b", ids: [] }),
      new CliError.Interrupted()
    ]
    expect(errors.map(CliError.isCliError)).toStrictEqual(errors.map(() => true))
    expect([{ _tag: "UsageError", message: "m", exitCode: 2 }, new Error("m"), "UsageError", 2, null, undefined].map(CliError.isCliError)).toStrictEqual([false, false, false, false, false, false])
    expect(CliError.TypeId).toBe(Symbol.for("@agentfx/cli/CliError"))
    expect(errors.map((error) => error[CliError.TypeId])).toStrictEqual(errors.map(() => CliError.TypeId))
  })
})
