/**
 * A base URL that cannot work is a configuration error (exit 2) before anything is sent; a connection that fails
 * says where and why; the key is never printed. Runs that retry move the TestClock instead of sleeping.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { createServer } from "node:net"
import type { AddressInfo } from "node:net"
import { agentfx, tempDir, untilEnd, writeFiles } from "./support/cli.js"

const sentinel = "AIza-SENTINEL-endpoint-0123456789"

const closedPort = Effect.async<number>((resume) => {
  const server = createServer()
  server.listen(0, "127.0.0.1", () => {
    const { port } = server.address() as AddressInfo
    server.close(() => resume(Effect.succeed(port)))
  })
})

describe("the provider's endpoint, from the command line", () => {
  for (const url of ["http://[::1", "ftp://127.0.0.1/v1", "localhost:8080"]) {
    it.scopedLive(`--base-url ${url} is a usage error (exit 2) on run, chat, eval and live`, () =>
      Effect.gen(function* () {
        for (const args of [["run", "hi"], ["chat"], ["eval", "cases", "--scenarios", "s"], ["live"]]) {
          const result = yield* agentfx([...args, "--base-url", url], { env: { GEMINI_API_KEY: sentinel } })
          expect(result.code).toBe(2)
          expect(result.stderr).toMatch(new RegExp(`^agentfx: --base-url ${url.replace(/[[\].]/g, "\\$&")}: a base URL (must be a valid URL|starts with http:// or https://)`))
        }
      }))
  }

  it.scopedLive("--base-url or --mcp-url holding a password: exit 2 before anything runs on run, chat, eval and live; the password never printed (issue 35, item 7)", () =>
    Effect.gen(function* () {
      const password = "PASSWORD-0123"
      const url = `http://user:${password}@127.0.0.1:9`
      for (const args of [["run", "hi"], ["chat"], ["eval", "cases", "--scenarios", "s"], ["live"]]) {
        for (const flags of [["--base-url", url], [`--base-url=${url}`], ["--mcp-url", `${url}/mcp`]]) {
          if (args[0] === "eval" && flags[0] === "--mcp-url") continue
          const result = yield* agentfx([...args, ...flags], { env: { GEMINI_API_KEY: sentinel } })
          expect(result.code).toBe(2)
          expect(result.stderr).toMatch(
            flags[0] === "--mcp-url"
              ? /^agentfx: --mcp-url: an MCP URL cannot hold a user name or password \(fetch refuses such a URL\): send credentials with --mcp-header, e\.g\. --mcp-header "Authorization: Bearer TOKEN"\n$/
              : /^agentfx: --base-url http:\/\/\*\*\*@127\.0\.0\.1:9\/: a base URL cannot hold a user name or password: fetch refuses such a URL\n$/
          )
          expect(result.stdout + result.stderr).not.toContain(password)
        }
      }
    }))

  it.scopedLive("GEMINI_BASE_URL, ZAI_BASE_URL or OPENAI_BASE_URL holding a password: exit 2 at once, naming the variable, never the password (issue 35, item 7)", () =>
    Effect.gen(function* () {
      const password = "PASSWORD-0123"
      const url = `http://user:${password}@127.0.0.1:9/v1`
      const cases: ReadonlyArray<readonly [ReadonlyArray<string>, Record<string, string>, string]> = [
        [["run", "hi"], { GEMINI_API_KEY: sentinel, GEMINI_BASE_URL: url }, "gemini is not configured correctly: GEMINI_BASE_URL"],
        [["run", "--provider", "glm", "hi"], { ZAI_API_KEY: sentinel, ZAI_BASE_URL: url }, "glm is not configured correctly: ZAI_BASE_URL"],
        [["chat", "--provider", "glm-coding"], { ZAI_API_KEY: sentinel, ZAI_BASE_URL: url }, "glm-coding is not configured correctly: ZAI_BASE_URL"],
        [["eval", "cases", "--scenarios", "s", "--provider", "openai"], { OPENAI_API_KEY: sentinel, OPENAI_BASE_URL: url }, "openai is not configured correctly: OPENAI_BASE_URL"],
        [["live"], { GEMINI_API_KEY: sentinel, GEMINI_BASE_URL: url }, "Gemini Live is not configured correctly: GEMINI_BASE_URL"]
      ]
      for (const [args, env, start] of cases) {
        const dir = yield* tempDir
        writeFiles(dir, { "cases/a.yaml": "- id: a\n  scenario: s\n  input: hi\n  expected_function_calls: []\n", "s/s.md": "---\nname: s\ndescription: d\navailable_functions: []\n---\nBe brief.\n" })
        const result = yield* agentfx(args.map((arg) => (arg === "cases" || arg === "s" ? `${dir}/${arg}` : arg)), { env })
        expect(result).toEqual({ code: 2, stdout: "", stderr: `agentfx: ${start} cannot hold a user name or password: fetch refuses such a URL\n` })
      }
    }))

  it.scopedLive("GEMINI_BASE_URL that is not an http(s) URL: exit 2 at once, naming the variable, never the key", () =>
    Effect.gen(function* () {
      const result = yield* agentfx(["run", "hi"], { env: { GEMINI_API_KEY: sentinel, GEMINI_BASE_URL: "ftp://127.0.0.1/" } })
      expect(result.code).toBe(2)
      expect(result.stderr).toBe("agentfx: gemini is not configured correctly: GEMINI_BASE_URL must be an http:// or https:// URL\n")
      expect(result.stdout + result.stderr).not.toContain(sentinel)
    }))

  it.scoped("nothing listening at the base URL: retried, then exit 1 with 'cannot connect to <url>: ECONNREFUSED'", () =>
    Effect.gen(function* () {
      const port = yield* closedPort
      const fiber = yield* Effect.fork(agentfx(["run", "--provider", "gemini", "--base-url", `http://127.0.0.1:${port}`, "hi"], { env: { GEMINI_API_KEY: sentinel } }))
      const result = yield* untilEnd(fiber)
      expect(result.code).toBe(1)
      const last = result.stderr.trimEnd().split("\n").at(-1)
      expect(last).toBe(`agentfx: Unavailable: cannot connect to http://127.0.0.1:${port}: ECONNREFUSED`)
      expect(result.stdout + result.stderr).not.toContain(sentinel)
    }))

  it.scopedLive("live: GEMINI_BASE_URL that is not an http(s) URL is a configuration error too (exit 2)", () =>
    Effect.gen(function* () {
      const result = yield* agentfx(["live"], { env: { GEMINI_API_KEY: sentinel, GEMINI_BASE_URL: "not a url" } })
      expect(result.code).toBe(2)
      expect(result.stderr).toBe("agentfx: Gemini Live is not configured correctly: GEMINI_BASE_URL must be an http:// or https:// URL\n")
    }))
})
