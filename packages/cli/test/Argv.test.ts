import { Argv, Cli } from "@agentfx/cli"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { agentfx } from "./support/cli.js"

const words = (n: number): ReadonlyArray<string> => Array.from({ length: n }, (_, i) => `word${i}`)

/** `argv` behind a proxy that counts every read of it: the parser's work, without a clock. */
const counted = (argv: ReadonlyArray<string>): { readonly argv: ReadonlyArray<string>; readonly reads: () => number } => {
  let reads = 0
  const proxy = new Proxy(argv, {
    get: (target, key, receiver) => {
      reads++
      return Reflect.get(target, key, receiver) as unknown
    }
  })
  return { argv: proxy, reads: () => reads }
}

describe("Argv", () => {
  it("a 100,000-word prompt parses, with work linear in the words (reads of argv: at most 2 × 100 × those of 1,000 words)", () => {
    const small = counted(["run", ...words(1_000)])
    const large = counted(["run", ...words(100_000)])
    const parsedSmall = Argv.parse(Cli.commands, small.argv)
    const parsed = Argv.parse(Cli.commands, large.argv)
    expect(parsedSmall._tag).toBe("Run")
    expect(parsed._tag === "Run" ? parsed.args.length : parsed).toBe(100_000)
    // Linear: ≈ 100 times the reads; quadratic would be ≈ 10,000 times.
    expect(large.reads() / small.reads()).toBeLessThan(200)
  })

  it("--log-level with a bad value names the option and lists the levels, before or after the command", () => {
    const message = "--log-level bogus: the choices are all, trace, debug, info, warning, error, fatal, none"
    for (const argv of [["run", "--log-level", "bogus", "hi"], ["--log-level", "bogus", "run", "hi"], ["run", "--log-level=bogus", "hi"]]) {
      const parsed = Argv.parse(Cli.commands, argv)
      expect(parsed._tag === "Invalid" ? parsed.message : parsed._tag).toBe(message)
    }
    const near = Argv.parse(Cli.commands, ["chat", "--log-level", "warn"])
    expect(near._tag === "Invalid" ? near.message : near._tag).toBe(`${message.replace("bogus", "warn")} (did you mean warning?)`)
  })

  it("options every command takes may come before it: read as the command's, never as part of a prompt after --", () => {
    const parsed = Argv.parse(Cli.commands, ["--verbose", "--log-level", "debug", "run", "--", "-5", "plus", "3"])
    expect(parsed._tag).toBe("Run")
    if (parsed._tag !== "Run") return
    expect(parsed.verbose).toBe(true)
    expect(parsed.options.text("log-level")).toBe("debug")
    expect(parsed.args).toEqual(["-5", "plus", "3"])
    const alone = Argv.parse(Cli.commands, ["--verbose", "--verbose"])
    expect(alone._tag === "Invalid" ? alone.message : alone._tag).toMatch(/^a command is needed/)
  })

  it.scopedLive("agentfx --log-level bogus: one usage line, exit 2; a good level runs the command", () =>
    Effect.gen(function* () {
      const bad = yield* agentfx(["run", "--log-level", "bogus", "hi"])
      expect(bad.code).toBe(2)
      expect(bad.stderr).toBe("agentfx: --log-level bogus: the choices are all, trace, debug, info, warning, error, fatal, none\n")
      const good = yield* agentfx(["--log-level", "none", "run", "what is 2 + 2"])
      expect(good.code).toBe(0)
      expect(good.stdout).toContain("← calculator")
    })
  )

  it("every checked value is read on both sides of each of its bounds and at it", () => {
    const run = (option: string, value: string) => ["run", option, value, "hi"]
    const evals = (option: string, value: string) => ["eval", "cases", "--scenarios", "scenarios", option, value]
    const emulator = (option: string, value: string) => ["emulator", option, value]
    const chat = (option: string, value: string) => ["chat", option, value]
    const cases: ReadonlyArray<{
      readonly argv: (option: string, value: string) => ReadonlyArray<string>
      readonly option: string
      readonly accepted: ReadonlyArray<string>
      readonly refused: ReadonlyArray<string>
    }> = [
      { argv: run, option: "--max-turns", accepted: ["1", "9007199254740991"], refused: ["0", "-1", "1.5", "9007199254740992"] },
      { argv: run, option: "--concurrency", accepted: ["1", "2"], refused: ["0", "-1"] },
      { argv: evals, option: "--concurrency", accepted: ["1"], refused: ["0"] },
      { argv: emulator, option: "--port", accepted: ["0", "65535"], refused: ["-1", "65536"] },
      { argv: run, option: "--temperature", accepted: ["0", "2", "2.0", ".5"], refused: ["-0.1", "2.01", "2.1"] },
      // A fraction written as digits: what Number also reads (a sign, spaces, an exponent, hex) is refused.
      { argv: evals, option: "--threshold", accepted: ["0", "1", "0.99", "1.0", ".5"], refused: ["1.01", "-0.1", "2", "+0.5", "0.5 ", " 0.5", "1e-1", "0x1"] },
      // A timer holds at most 2^31 - 1 ms (about 24.8 days).
      { argv: run, option: "--turn-timeout", accepted: ["1ms", "0.001", "2147483647ms"], refused: ["0", "0ms", "0.0001", "2147483648ms"] },
      { argv: run, option: "--max-response-bytes", accepted: ["1", "1b", "1.9"], refused: ["0", "0.5", "9007199254740992"] },
      { argv: run, option: "--mcp-max-bytes", accepted: ["1"], refused: ["0"] },
      // A session name is a file name under the sessions directory: never a path out of it, nor a hidden file.
      {
        argv: chat,
        option: "--session",
        accepted: ["work", "7", "v2.1_a-b", "a".repeat(100)],
        refused: ["../x", "a..b", ".hidden", "-x", "a/b", "a b", "a".repeat(101)]
      }
    ]
    for (const { argv, option, accepted, refused } of cases) {
      for (const value of accepted) expect(Argv.parse(Cli.commands, argv(option, value))._tag, `${option} ${value}`).toBe("Run")
      for (const value of refused) {
        const parsed = Argv.parse(Cli.commands, argv(option, value))
        expect(parsed._tag === "Invalid" ? parsed.message.startsWith(`${option} ${value}: `) : parsed._tag, `${option} ${value}`).toBe(true)
      }
    }
    expect(Argv.parse(Cli.commands, ["chat", "--session", "../x"])).toMatchObject({
      _tag: "Invalid",
      message: "--session ../x: a session name holds letters, digits, '.', '_' and '-', and starts with a letter or digit"
    })
  })

  it("the MCP options are repeatable, each value kept in order; a bad --mcp-header is never quoted (it holds a credential)", () => {
    const parsed = Argv.parse(Cli.commands, [
      "run",
      ...["--mcp", "a", "--mcp", "b"],
      ...["--mcp-url", "http://127.0.0.1:1/mcp", "--mcp-url", "http://127.0.0.1:2/mcp"],
      ...["--mcp-header", "127.0.0.1:1=A: 1", "--mcp-header", "127.0.0.1:2=B: 2"],
      ...["--mcp-tools", "127.0.0.1:1=t", "--mcp-tools", "127.0.0.1:2=u"],
      "hi"
    ])
    expect(parsed._tag === "Run" ? ["mcp", "mcp-url", "mcp-header", "mcp-tools"].map((name) => parsed.options.list(name)) : parsed).toEqual([
      ["a", "b"],
      ["http://127.0.0.1:1/mcp", "http://127.0.0.1:2/mcp"],
      ["127.0.0.1:1=A: 1", "127.0.0.1:2=B: 2"],
      ["127.0.0.1:1=t", "127.0.0.1:2=u"]
    ])
    const bad = Argv.parse(Cli.commands, ["run", "--mcp-header", "Bearer SECRET", "hi"])
    expect(bad._tag === "Invalid" ? bad.message.startsWith("--mcp-header: ") && !bad.message.includes("SECRET") : bad).toBe(true)
  })

  it("runs takes the options of the agent it resumes but starts no MCP server (no --mcp, no --mcp-url); tools takes --json and the MCP servers to list", () => {
    const tag = (argv: ReadonlyArray<string>) => {
      const parsed = Argv.parse(Cli.commands, argv)
      return parsed._tag === "Invalid" ? parsed.message : parsed._tag
    }
    expect(tag(["runs", "resume", "r1", "--root", ".", "--provider", "emulator", "--yes", "--json"])).toBe("Run")
    expect(tag(["runs", "approve", "r1", "c1", "--deny", "no"])).toBe("Run")
    expect(tag(["runs", "resume", "r1", "--mcp", "server"])).toMatch(/^unknown option --mcp for agentfx runs/)
    expect(tag(["runs", "resume", "r1", "--mcp-url", "http://127.0.0.1:1/mcp"])).toMatch(/^unknown option --mcp-url for agentfx runs/)
    expect(tag(["tools", "--json", "--mcp", "server", "--mcp-url", "http://127.0.0.1:1/mcp"])).toBe("Run")
  })

  it("a base URL that is not a URL, and one that is not http(s): the message says which", () => {
    const message = (url: string) => {
      const parsed = Argv.parse(Cli.commands, ["run", "--base-url", url, "hi"])
      return parsed._tag === "Invalid" ? parsed.message : parsed._tag
    }
    expect(message("not a url")).toBe("--base-url not a url: a base URL must be a valid URL, e.g. http://127.0.0.1:8080")
    expect(message("ftp://host/v1")).toBe("--base-url ftp://host/v1: a base URL starts with http:// or https://")
  })

  it("an error never quotes a URL's password: a value, --name=VALUE, an argument, the rest of the line in a hint (issue 35, item 7)", () => {
    const url = "http://user:PASS@127.0.0.1:9"
    const cases: ReadonlyArray<readonly [ReadonlyArray<string>, string]> = [
      [["run", "--base-url", url, "hi"], "--base-url http://***@127.0.0.1:9/: a base URL cannot hold a user name or password: fetch refuses such a URL"],
      [["run", `--base-url=${url}`, "hi"], "--base-url http://***@127.0.0.1:9/: a base URL cannot hold a user name or password: fetch refuses such a URL"],
      [["run", "--mcp-url", "ftp://user:PASS@host/mcp", "hi"], "--mcp-url: an MCP URL starts with http:// or https://"],
      // --mcp-url is never quoted at all: a URL of a server may carry a token anywhere.
      [["run", "--mcp-url", `${url}/mcp`, "hi"], '--mcp-url: an MCP URL cannot hold a user name or password (fetch refuses such a URL): send credentials with --mcp-header, e.g. --mcp-header "Authorization: Bearer TOKEN"'],
      [["emulator", url], "unexpected argument 'http://***@127.0.0.1:9/' for agentfx emulator, which takes none: agentfx emulator [options]"],
      [["run", "-x", url], 'unknown option -x for agentfx run; an argument that starts with - goes after --: agentfx run -- "-x http://***@127.0.0.1:9/"']
    ]
    for (const [argv, message] of cases) {
      const parsed = Argv.parse(Cli.commands, argv)
      expect(parsed._tag === "Invalid" ? parsed.message : parsed._tag).toBe(message)
    }
  })

  describe("what comes before the command", () => {
    const names = Cli.commands.map((spec) => spec.name).join(", ")

    it("--help, -h and help alone: the root help; help COMMAND: the command's; --help with more after it: still the root's", () => {
      for (const argv of [["--help"], ["-h"], ["help"], ["--help", "run"], ["-h", "run"]]) {
        expect(Argv.parse(Cli.commands, argv), argv.join(" ")).toEqual({ _tag: "Help", spec: undefined })
      }
      expect(Argv.parse(Cli.commands, ["help", "eval"])).toEqual({ _tag: "Help", spec: Cli.commands.find((spec) => spec.name === "eval") })
    })

    it("help with an unknown command: the commands, and the one meant when one is close", () => {
      expect(message(["help", "rnu"])).toBe(`unknown command 'rnu' (did you mean 'run'?); the commands are ${names}`)
      expect(message(["help", "zzzzzzzz"])).toBe(`unknown command 'zzzzzzzz'; the commands are ${names}`)
    })

    it("--version alone prints the version; anything after it is an error", () => {
      expect(Argv.parse(Cli.commands, ["--version"])).toEqual({ _tag: "Version" })
      expect(message(["--version", "run"])).toBe("--version takes nothing after it")
    })

    it("--completions SHELL and --completions=SHELL; without a shell, or an unknown one, an error", () => {
      expect(Argv.parse(Cli.commands, ["--completions", "fish"])).toEqual({ _tag: "Completions", shell: "fish" })
      expect(Argv.parse(Cli.commands, ["--completions=zsh"])).toEqual({ _tag: "Completions", shell: "zsh" })
      expect(message(["--completions"])).toBe("--completions needs a shell: bash, zsh, fish or sh")
      expect(message(["--completions=tcsh"])).toBe("--completions tcsh: the choices are bash, zsh, fish, sh")
      expect(message(["--completions="])).toBe("--completions is empty: the choices are bash, zsh, fish, sh")
    })

    it("--log-level=LEVEL and --verbose before the command are the command's; with no command after them, an error listing the commands", () => {
      for (const argv of [["--log-level=debug", "run", "hi"], ["--verbose", "--log-level=debug", "run", "hi"]]) {
        const parsed = Argv.parse(Cli.commands, argv)
        expect(parsed._tag === "Run" ? [parsed.options.text("log-level"), parsed.args, parsed.verbose] : parsed, argv.join(" ")).toEqual([
          "debug",
          ["hi"],
          argv[0] === "--verbose"
        ])
      }
      for (const argv of [["--log-level", "debug"], ["--log-level=debug"], ["--verbose"], ["--log-level"]]) {
        expect(message(argv), argv.join(" ")).toBe(`a command is needed: ${names} (agentfx --help describes them)`)
      }
    })

    it("an option before the command that is not one of those: the one meant when close, and that the command comes first", () => {
      expect(message(["--verison"])).toBe("unknown option --verison for agentfx (did you mean --version?); the command comes first: agentfx COMMAND [options]")
      expect(message(["--completion=bash"])).toBe(
        "unknown option --completion=bash for agentfx (did you mean --completions?); the command comes first: agentfx COMMAND [options]"
      )
      expect(message(["--hel"])).toBe("unknown option --hel for agentfx (did you mean --help?); the command comes first: agentfx COMMAND [options]")
      expect(message(["-x", "run"])).toBe("unknown option -x for agentfx; the command comes first: agentfx COMMAND [options]")
    })
  })

  describe("a command's arguments", () => {
    it("--verbose counts only before --: after it, it is a word of the prompt", () => {
      const after = Argv.parse(Cli.commands, ["run", "--", "explain", "--verbose"])
      expect(after._tag === "Run" ? [after.verbose, after.args] : after).toEqual([false, ["explain", "--verbose"]])
      const before = Argv.parse(Cli.commands, ["run", "--verbose", "--", "explain"])
      expect(before._tag === "Run" ? [before.verbose, before.args] : before).toEqual([true, ["explain"]])
    })

    it("a lone - is an argument, not an option", () => {
      const parsed = Argv.parse(Cli.commands, ["run", "-"])
      expect(parsed._tag === "Run" ? parsed.args : parsed).toEqual(["-"])
    })

    it("an unknown short option of a command that takes no arguments: no hint about --", () => {
      expect(message(["emulator", "-x"])).toBe("unknown option -x for agentfx emulator")
    })

    it("a flag given twice is no error and holds no value", () => {
      const parsed = Argv.parse(Cli.commands, ["run", "--verbose", "--verbose", "hi"])
      expect(parsed._tag === "Run" ? parsed.options.list("verbose") : parsed).toEqual(["", ""])
    })

    it("a URL with a password in a prompt is kept as given (only errors hide it)", () => {
      const parsed = Argv.parse(Cli.commands, ["run", "fetch", "http://user:PASS@127.0.0.1:9/"])
      expect(parsed._tag === "Run" ? parsed.args : parsed).toEqual(["fetch", "http://user:PASS@127.0.0.1:9/"])
    })

    it("a URL without a password is quoted as given", () => {
      expect(message(["emulator", "http://127.0.0.1:9"])).toBe("unexpected argument 'http://127.0.0.1:9' for agentfx emulator, which takes none: agentfx emulator [options]")
    })

    it("a single argument takes one word: a second is unexpected", () => {
      expect(message(["eval", "cases", "more", "--scenarios", "scenarios"])).toBe(
        "unexpected argument 'more' for agentfx eval: agentfx eval --scenarios DIR [options] <cases-dir>"
      )
    })

    it("an option whose value may be left out (eval --bail [N]): a number after it is its value, anything else the next argument", () => {
      const bail = (argv: ReadonlyArray<string>) => {
        const parsed = Argv.parse(Cli.commands, ["eval", "--scenarios", "scenarios", ...argv])
        return parsed._tag === "Run" ? [parsed.options.text("bail"), parsed.args] : parsed._tag === "Invalid" ? parsed.message : parsed
      }
      expect(bail(["cases", "--bail"])).toEqual(["", ["cases"]])
      expect(bail(["--bail", "cases"])).toEqual(["", ["cases"]])
      expect(bail(["--bail", "3", "cases"])).toEqual(["3", ["cases"]])
      expect(bail(["--bail=2", "cases"])).toEqual(["2", ["cases"]])
      expect(bail(["--bail", "0", "cases"])).toBe("--bail 0: a whole number of at least 1 is needed")
      expect(bail(["--bail=", "cases"])).toBe("--bail is empty: a whole number of at least 1 is needed")
    })

    it("an empty value is checked like any other", () => {
      for (const argv of [["run", "--log-level", "", "hi"], ["run", "--log-level=", "hi"]]) {
        expect(message(argv)).toBe("--log-level is empty: the choices are all, trace, debug, info, warning, error, fatal, none")
      }
    })

    it("a required flag and a required option whose value may be left out, in the usage line", () => {
      const spec: Argv.Spec = {
        name: "go",
        summary: "Goes.",
        description: [],
        options: [
          { name: "force", required: true, description: "Force." },
          { name: "bail", value: "N", required: true, optionalValue: () => false, description: "Bail." },
          { name: "to", value: "DIR", required: true, description: "Where." }
        ],
        args: []
      }
      expect(Argv.usage(spec)).toBe("agentfx go --force --bail [N] --to DIR [options]")
    })

    it("an option whose value may be left out, last on the line: no value, however much its test would take", () => {
      const spec: Argv.Spec = {
        name: "go",
        summary: "Goes.",
        description: [],
        options: [{ name: "bail", value: "N", optionalValue: () => true, description: "Bail." }],
        args: []
      }
      const parsed = Argv.parse([spec], ["go", "--bail"])
      expect(parsed._tag === "Run" ? [parsed.options.text("bail"), parsed.args] : parsed).toEqual(["", []])
    })
  })

  describe("durations, sizes and numbers", () => {
    const read = (option: string, value: string) => {
      const parsed = Argv.parse(Cli.commands, ["run", option, value, "hi"])
      return parsed._tag === "Run" ? parsed.options : parsed._tag === "Invalid" ? parsed.message : parsed._tag
    }
    const millis = (value: string) => {
      const options = read("--turn-timeout", value)
      return typeof options === "string" ? options : options.millis("turn-timeout")
    }
    const size = (value: string) => {
      const options = read("--max-response-bytes", value)
      return typeof options === "string" ? options : options.bytes("max-response-bytes")
    }

    it("a duration: a fraction with no whole part, white space around it; nothing before the number", () => {
      expect(millis(".25s")).toBe(250)
      expect(millis(" 30s ")).toBe(30_000)
      expect(millis("x5s")).toBe("--turn-timeout x5s: a duration is needed: a number with ms, s, m or h, e.g. 30s, 500ms, 2m")
    })

    it("a size: K, M, G alone are binary, a fraction of a unit, white space around it; nothing before or after", () => {
      expect(size("2k")).toBe(2048)
      expect(size("1m")).toBe(1024 ** 2)
      expect(size("1.25KiB")).toBe(1280)
      expect(size(" 2KiB ")).toBe(2048)
      for (const value of ["x5", "5x"]) {
        expect(size(value)).toBe(`--max-response-bytes ${value}: a size is needed: a number of bytes, or with KiB, MiB, GiB (or KB, MB, GB), e.g. 32MiB`)
      }
    })

    it("a number in a range: whole, with several digits after the point or none, white space around it; no exponent", () => {
      const check = Argv.decimal(0, 100)
      for (const value of ["50", "1.25", "1.", ".25", " 1 "]) expect(check(value), value).toBeUndefined()
      for (const value of ["1e1", "x1", "1x"]) expect(check(value), value).toBe("a number from 0 to 100 is needed")
    })
  })
})

const message = (argv: ReadonlyArray<string>): string => {
  const parsed = Argv.parse(Cli.commands, argv)
  return parsed._tag === "Invalid" ? parsed.message : `not invalid: ${parsed._tag}`
}
