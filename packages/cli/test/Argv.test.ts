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
      { argv: evals, option: "--threshold", accepted: ["0", "1", "0.99", "1.0"], refused: ["1.01", "-0.1", "2"] },
      // A timer holds at most 2^31 - 1 ms (about 24.8 days).
      { argv: run, option: "--turn-timeout", accepted: ["1ms", "0.001", "2147483647ms"], refused: ["0", "0ms", "0.0001", "2147483648ms"] },
      { argv: run, option: "--max-response-bytes", accepted: ["1", "1b", "1.9"], refused: ["0", "0.5", "9007199254740992"] },
      { argv: run, option: "--mcp-max-bytes", accepted: ["1"], refused: ["0"] }
    ]
    for (const { argv, option, accepted, refused } of cases) {
      for (const value of accepted) expect(Argv.parse(Cli.commands, argv(option, value))._tag, `${option} ${value}`).toBe("Run")
      for (const value of refused) {
        const parsed = Argv.parse(Cli.commands, argv(option, value))
        expect(parsed._tag === "Invalid" ? parsed.message.startsWith(`${option} ${value}: `) : parsed._tag, `${option} ${value}`).toBe(true)
      }
    }
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
})
