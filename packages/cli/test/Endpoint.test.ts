/**
 * A base URL that cannot work is a configuration error (exit 2) before anything is sent; a connection that fails
 * says where and why; the key is never printed. Runs that retry move the TestClock instead of sleeping.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { createServer } from "node:net"
import type { AddressInfo } from "node:net"
import { agentfx, untilEnd } from "./support/cli.js"

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
