/**
 * The command specs say something for everything a user can type: each command has a summary, its paragraphs and
 * examples; each option a description that is a sentence, each argument one, a value its placeholder in capitals; what
 * a command requires is required. Help that shows an empty line for an option is a mistake no other test sees.
 */
import { Argv, Cli } from "@agentfx/cli"
import { describe, expect, it } from "@effect/vitest"

const sentence = /^\S[\s\S]*[.)]$/

describe("the command specs", () => {
  it("each command: a name, a one-line summary, paragraphs that are sentences, examples that run it", () => {
    expect(Cli.commands.map((spec) => spec.name)).toEqual(["run", "chat", "live", "eval", "tools", "emulator", "runs"])
    // The commands whose --help ends with Examples.
    expect(Cli.commands.filter((spec) => (spec.examples ?? []).length > 0).map((spec) => spec.name)).toEqual(["run", "chat", "live", "eval", "runs"])
    for (const spec of Cli.commands) {
      expect(spec.summary, spec.name).toMatch(/^\S.*\S$/)
      expect(spec.summary, spec.name).not.toContain("\n")
      expect(spec.description.length, spec.name).toBeGreaterThan(0)
      for (const paragraph of spec.description) expect(paragraph, spec.name).toMatch(sentence)
      for (const example of spec.examples ?? []) expect(example, spec.name).toMatch(new RegExp(`^agentfx ${spec.name}( |$)`))
      for (const arg of spec.args) {
        expect(arg.name, spec.name).toMatch(/^[a-z][a-z-]*$/)
        expect(arg.description, `${spec.name} <${arg.name}>`).toMatch(/^\S.*\S$/)
      }
    }
  })

  it("each option of each command, and those every command takes: a name, a sentence, a placeholder in capitals for a value, choices that are words", () => {
    const all = [...Cli.commands.flatMap((spec) => spec.options.map((option) => [spec.name, option] as const)), ...[...Argv.globalOptions, ...Argv.rootOptions].map((option) => ["agentfx", option] as const)]
    for (const [command, option] of all) {
      const at = `${command} --${option.name}`
      expect(option.name, at).toMatch(/^[a-z][a-z-]*$/)
      expect(option.description, at).toMatch(sentence)
      // Two spaces in a row are a hole in a template (help's wrapping would hide them: "Print  as JSON").
      expect(option.description, at).not.toMatch(/\s{2}/)
      if (option.value !== undefined) {
        expect(option.value, at).not.toBe("")
        expect(option.value, at).toBe(option.value.toUpperCase())
      }
      if (option.alias !== undefined) expect(option.alias, at).toMatch(/^[a-z]$/)
      if (option.choices !== undefined) {
        expect(option.choices.length, at).toBeGreaterThan(1)
        for (const choice of option.choices) expect(choice, at).toMatch(/^[a-z][a-z-]*$/)
      }
    }
  })

  it("what a command cannot run without is required: eval's --scenarios and <cases-dir>, run's prompt", () => {
    const message = (argv: ReadonlyArray<string>) => {
      const parsed = Argv.parse(Cli.commands, argv)
      return parsed._tag === "Invalid" ? parsed.message : parsed._tag
    }
    expect(message(["eval", "cases"])).toBe("--scenarios DIR is required: agentfx eval --scenarios DIR [options] <cases-dir>")
    expect(message(["eval", "--scenarios", "s"])).toBe("<cases-dir> is missing: agentfx eval --scenarios DIR [options] <cases-dir>")
    expect(message(["run"])).toBe("<prompt> is missing: agentfx run [options] [--] <prompt>...")
    expect(message(["runs"])).toBe("<action> is missing: agentfx runs [options] [--] <action>...")
    expect(message(["tools", "extra"])).toBe("unexpected argument 'extra' for agentfx tools, which takes none: agentfx tools [options]")
  })

  it("the choices each option offers: providers, log levels, shells", () => {
    const choices = (command: string, name: string) => [...Cli.commands.flatMap((spec) => (spec.name === command ? spec.options : [])), ...Argv.globalOptions, ...Argv.rootOptions].find((option) => option.name === name)?.choices
    expect(choices("run", "provider")).toEqual(["emulator", "gemini", "glm", "glm-coding", "openai"])
    expect(choices("live", "provider")).toEqual(["emulator", "gemini"])
    expect(choices("run", "log-level")).toEqual(["all", "trace", "debug", "info", "warning", "error", "fatal", "none"])
    expect(choices("agentfx", "completions")).toEqual(["bash", "zsh", "fish", "sh"])
  })

  it("each command has a handler to run it; a spec without one is refused with where the handler goes", async () => {
    for (const spec of Cli.commands) expect(typeof (await Cli.load(spec)).handler, spec.name).toBe("function")
    const nope: Argv.Spec = { name: "nope", summary: "Nothing.", description: [], options: [], args: [] }
    await expect(Cli.load(nope)).rejects.toThrow("agentfx nope has no handler (src/handlers/nope.ts, listed in Cli.ts)")
  })
})
