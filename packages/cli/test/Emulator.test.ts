import { LanguageModel, LiveAgent, Registry, Turn } from "@agentfx/core"
import { Io } from "@agentfx/cli"
import { Gemini, GeminiLive, OpenAI } from "@agentfx/providers"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Redacted from "effect/Redacted"
import { createServer } from "node:net"
import { agentfx } from "./support/cli.js"

const ask = (text: string) =>
  Effect.flatMap(LanguageModel.LanguageModel, (model) => model.generate({ transcript: [Turn.user(text)], declarations: [] }))

/** Listens on `host`, on any free port, for the test's scope; gives the port. */
const holding = (host: string) =>
  Effect.gen(function* () {
    const server = createServer()
    return yield* Effect.acquireRelease(
      Effect.async<number>((resume) => {
        // A host this machine lacks (no IPv6 loopback) fails the test with the system's words, not a hang.
        server.once("error", (error) => resume(Effect.die(error)))
        server.listen(0, host, () => resume(Effect.succeed((server.address() as { port: number }).port)))
      }),
      () => Effect.async<void>((resume) => void server.close(() => resume(Effect.void)))
    )
  })

/** Runs `agentfx emulator args` until it has printed a line, then stops it with Ctrl-C. */
const printed = (args: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const terminal = yield* Io.memory()
    const fiber = yield* Effect.fork(agentfx(["emulator", ...args], { terminal }))
    yield* terminal.waitForOutput((out) => out.endsWith("\n"))
    yield* terminal.interrupt
    return yield* Fiber.join(fiber)
  })

const field = (banner: string, label: string): string => {
  const match = new RegExp(`${label}\\s+(\\S+)`).exec(banner)
  if (match === null) throw new Error(`no ${label} in: ${banner}`)
  return match[1]!
}

describe("agentfx emulator", () => {
  it.scopedLive("prints its base URLs and key, answers the real SDKs there, and stops on Ctrl-C with exit 130 (issue 35, item 18)", () =>
    Effect.gen(function* () {
      const terminal = yield* Io.memory()
      const fiber = yield* Effect.fork(agentfx(["emulator"], { terminal }))
      const banner = yield* terminal.waitForOutput((out) => out.includes("API key"))
      expect(banner).toMatch(/^agentfx emulator on http:\/\/127\.0\.0\.1:\d+ — the offline rule model answers; Ctrl-C stops it\./)
      const apiKey = Redacted.make(field(banner, "API key"))
      const gemini = yield* ask("hello").pipe(Effect.provide(Gemini.layer({ apiKey, baseUrl: field(banner, "Gemini") })))
      expect(Turn.text(gemini.turn)).toContain("I am the agentfx emulator")
      const openai = yield* ask("hello").pipe(Effect.provide(OpenAI.layer({ apiKey, baseUrl: field(banner, "OpenAI") })))
      expect(Turn.text(openai.turn)).toContain("I am the agentfx emulator")
      expect(field(banner, "GLM \\(coding\\)")).toMatch(/\/api\/coding\/paas\/v4$/)
      // Gemini Live on the same base URL: the SDK derives the WebSocket the banner shows.
      expect(field(banner, "Gemini Live")).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/ws\/google\.ai\.generativelanguage\.v1beta\.GenerativeService\.BidiGenerateContent$/)
      const [live] = yield* LiveAgent.run({ registry: Registry.unsafeMake(), messages: ["hello"] }).pipe(
        Effect.provide(GeminiLive.layer({ apiKey, baseUrl: field(banner, "Gemini") }))
      )
      expect(live!.text).toContain("I am the agentfx emulator")
      yield* terminal.interrupt
      const result = yield* Fiber.join(fiber)
      // Stopped by Ctrl-C like every command: exit 130, and stdout holds the banner alone (issue 35, item 18).
      expect(result.code).toBe(130)
      expect(result.stdout).toBe(banner)
      expect(result.stderr).toBe("agentfx: interrupted\n")
      const stopped = yield* Effect.either(ask("again").pipe(Effect.provide(Gemini.layer({ apiKey, baseUrl: field(banner, "Gemini") }))))
      expect(stopped._tag).toBe("Left")
    })
  )

  it.scopedLive("a port in use is a clear error (exit 1); a port out of range is a usage error (exit 2)", () =>
    Effect.gen(function* () {
      const server = createServer()
      const port = yield* Effect.acquireRelease(
        Effect.async<number>((resume) => {
          server.listen(0, "127.0.0.1", () => resume(Effect.succeed((server.address() as { port: number }).port)))
        }),
        () => Effect.async<void>((resume) => void server.close(() => resume(Effect.void)))
      )
      const busy = yield* agentfx(["emulator", "--port", String(port)])
      expect(busy.code).toBe(1)
      expect(busy.stderr).toContain(`agentfx: cannot listen on 127.0.0.1:${port}: the port is in use`)
      const range = yield* agentfx(["emulator", "--port", "70000"])
      expect(range.code).toBe(2)
      expect(range.stderr).toBe("agentfx: --port 70000: a whole number from 0 to 65535 is needed\n")
    })
  )

  it.scopedLive("the banner, exactly: each endpoint's URL with the flag or variable that takes it, and the key", () =>
    Effect.gen(function* () {
      const result = yield* printed([])
      const url = /^agentfx emulator on (http:\/\/127\.0\.0\.1:\d+) /.exec(result.stdout)?.[1]
      expect([result.code, result.stdout, result.stderr]).toStrictEqual([
        130,
        [
          `agentfx emulator on ${url} — the offline rule model answers; Ctrl-C stops it.`,
          `  Gemini          ${url}    (--provider gemini --base-url …, or GEMINI_BASE_URL)`,
          `  Gemini Live     ${url!.replace("http", "ws")}/ws/google.ai.generativelanguage.v1beta.GenerativeService.BidiGenerateContent    (the SDK's live.connect from the Gemini base URL; agentfx live --provider gemini --base-url …)`,
          `  OpenAI          ${url}/v1    (--provider openai --base-url …, or OPENAI_BASE_URL)`,
          `  GLM (general)   ${url}/api/paas/v4    (--provider glm --base-url …, or ZAI_BASE_URL)`,
          `  GLM (coding)    ${url}/api/coding/paas/v4    (--provider glm-coding --base-url …)`,
          `  API key         agentfx-emulator-key    (as GEMINI_API_KEY, OPENAI_API_KEY or ZAI_API_KEY)`,
          ""
        ].join("\n"),
        "agentfx: interrupted\n"
      ])
    }))

  it.scopedLive("--json on a free --port: one line of the same URLs; a port taken on another address than 127.0.0.1 is no obstacle", () =>
    Effect.gen(function* () {
      const port = yield* holding("::1")
      const result = yield* printed(["--port", String(port), "--json"])
      const url = `http://127.0.0.1:${port}`
      expect([result.code, result.stdout, result.stderr]).toStrictEqual([
        130,
        `${JSON.stringify({
          url,
          gemini: url,
          geminiLive: `ws://127.0.0.1:${port}/ws/google.ai.generativelanguage.v1beta.GenerativeService.BidiGenerateContent`,
          openai: `${url}/v1`,
          glm: `${url}/api/paas/v4`,
          glmCoding: `${url}/api/coding/paas/v4`,
          apiKey: "agentfx-emulator-key"
        })}\n`,
        "agentfx: interrupted\n"
      ])
    }))
})
