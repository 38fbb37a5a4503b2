import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { agentfx, emulator } from "./support/cli.js"

const sentinel = "sk-SENTINEL-7f3a9c1e-do-not-print"

const run = ["run", "what is 2 + 3?"]

describe("provider selection", () => {
  it.scopedLive("with no key, the in-process emulator answers, and the command says so", () =>
    Effect.gen(function* () {
      const result = yield* agentfx(run)
      expect(result.code).toBe(0)
      expect(result.stderr).toMatch(/^provider: emulator — the offline rule model/)
      expect(result.stderr).toContain("No API key is set (GEMINI_API_KEY, GOOGLE_API_KEY, ZAI_API_KEY, OPENAI_API_KEY)")
      expect(result.stdout).toContain("← calculator")
    })
  )

  const cases: ReadonlyArray<{
    readonly name: string
    readonly env: (url: string, glm: string, openai: string) => Record<string, string>
    readonly provider: string
    readonly path: RegExp
    readonly reason: string
  }> = [
    {
      name: "GEMINI_API_KEY picks gemini",
      env: (url) => ({ GEMINI_API_KEY: sentinel, GEMINI_BASE_URL: url }),
      provider: "gemini",
      path: /^\/v1beta\/models\//,
      reason: "GEMINI_API_KEY is set"
    },
    {
      name: "GOOGLE_API_KEY picks gemini too",
      env: (url) => ({ GOOGLE_API_KEY: sentinel, GEMINI_BASE_URL: url }),
      provider: "gemini",
      path: /^\/v1beta\/models\//,
      reason: "GOOGLE_API_KEY is set"
    },
    {
      name: "gemini wins over the others",
      env: (url, glm, openai) => ({ GEMINI_API_KEY: sentinel, GEMINI_BASE_URL: url, ZAI_API_KEY: "zai-other", ZAI_BASE_URL: glm, OPENAI_API_KEY: "sk-other", OPENAI_BASE_URL: openai }),
      provider: "gemini",
      path: /^\/v1beta\/models\//,
      reason: "GEMINI_API_KEY is set"
    },
    {
      name: "ZAI_API_KEY picks glm when no Gemini key is set",
      env: (_, glm, openai) => ({ ZAI_API_KEY: sentinel, ZAI_BASE_URL: glm, OPENAI_API_KEY: "sk-other", OPENAI_BASE_URL: openai }),
      provider: "glm",
      path: /^\/api\/paas\/v4\/chat\/completions$/,
      reason: "ZAI_API_KEY is set"
    },
    {
      name: "OPENAI_API_KEY picks openai last",
      env: (_, __, openai) => ({ OPENAI_API_KEY: sentinel, OPENAI_BASE_URL: openai }),
      provider: "openai",
      path: /^\/v1\/chat\/completions$/,
      reason: "OPENAI_API_KEY is set"
    }
  ]

  for (const testCase of cases) {
    it.scopedLive(`${testCase.name}; the key never appears in the output`, () =>
      Effect.gen(function* () {
        const server = yield* emulator({ apiKey: sentinel })
        const result = yield* agentfx(run, { env: testCase.env(server.geminiBaseUrl, server.glmBaseUrl(), server.openAIBaseUrl()) })
        expect(result.code).toBe(0)
        // The base URL comes from the environment here, and the announcement says so.
        expect(result.stderr).toMatch(new RegExp(`^provider: ${testCase.provider}, model \\S+ at http://127\\.0\\.0\\.1:\\d+\\S* \\(${testCase.reason}\\)`))
        expect(result.stdout).toContain("← calculator")
        const requests = yield* server.requests
        expect(requests.length).toBeGreaterThan(0)
        for (const request of requests) expect(request.path).toMatch(testCase.path)
        expect(result.stdout + result.stderr).not.toContain(sentinel)
        expect(result.stdout + result.stderr).not.toContain("SENTINEL")
      })
    )
  }

  it.scopedLive("--provider wins over the environment, and glm-coding uses Z.AI's coding route", () =>
    Effect.gen(function* () {
      const server = yield* emulator({ apiKey: sentinel })
      const result = yield* agentfx([...run, "--provider", "glm-coding", "--base-url", server.glmBaseUrl("coding"), "--model", "glm-4.6"], {
        env: { GEMINI_API_KEY: "AIza-other", ZAI_API_KEY: sentinel }
      })
      expect(result.code).toBe(0)
      expect(result.stderr).toContain("provider: glm-coding, model glm-4.6 at http://127.0.0.1")
      expect(result.stderr).toContain("(chosen with --provider)")
      const [first] = yield* server.requests
      expect(first?.path).toBe("/api/coding/paas/v4/chat/completions")
      expect(first?.model).toBe("glm-4.6")
      expect(result.stdout + result.stderr).not.toContain(sentinel)
    })
  )

  it.scopedLive("a key the server rejects: exit code 1, one line naming the variable and offline mode, never the key", () =>
    Effect.gen(function* () {
      const server = yield* emulator()
      const result = yield* agentfx(run, { env: { GOOGLE_API_KEY: sentinel, GEMINI_BASE_URL: server.geminiBaseUrl } })
      expect(result.code).toBe(1)
      const lines = result.stderr.trimEnd().split("\n")
      expect(lines).toHaveLength(2)
      expect(lines[0]).toMatch(/^provider: gemini, model \S+ at http:\/\/127\.0\.0\.1:\d+ \(GOOGLE_API_KEY is set\)$/)
      expect(lines[1]).toMatch(/^agentfx: gemini refused the API key \(\d{3}\): check GOOGLE_API_KEY, or run offline with --provider emulator$/)
      expect(result.stdout + result.stderr).not.toContain(sentinel)
      expect(result.stdout + result.stderr).not.toContain("SENTINEL")
    })
  )

  for (const [provider, variables, other] of [
    ["gemini", "GEMINI_API_KEY or GOOGLE_API_KEY", "ZAI_API_KEY"],
    ["glm", "ZAI_API_KEY", "GEMINI_API_KEY"],
    ["glm-coding", "ZAI_API_KEY", "OPENAI_API_KEY"],
    ["openai", "OPENAI_API_KEY", "GOOGLE_API_KEY"]
  ] as const) {
    it.scopedLive(`--provider ${provider} without its key (another provider's set) is a configuration error (exit 2) naming its variables`, () =>
      Effect.gen(function* () {
        const result = yield* agentfx([...run, "--provider", provider], { env: { [other]: sentinel } })
        expect(result.code).toBe(2)
        expect(result.stderr).toBe(`agentfx: ${provider} needs an API key: set ${variables}, or choose another --provider (emulator needs none)\n`)
        expect(result.stdout).toBe("")
      })
    )
  }

  for (const [provider, variable] of [["gemini", "GEMINI_API_KEY"], ["glm", "ZAI_API_KEY"], ["glm-coding", "ZAI_API_KEY"], ["openai", "OPENAI_API_KEY"]] as const) {
    it.scopedLive(`--provider ${provider} with ${variable}= (set but empty) is one clear usage error (exit 2), nothing sent`, () =>
      Effect.gen(function* () {
        const result = yield* agentfx([...run, "--provider", provider], { env: { [variable]: "" } })
        expect(result.code).toBe(2)
        expect(result.stderr).toBe(`agentfx: ${variable} is set but empty: put your ${provider} API key in it, or choose another --provider (emulator needs none)\n`)
        expect(result.stdout).toBe("")
      })
    )
  }

  it.scopedLive("an empty key with no --provider runs offline, and the announcement says the key is empty", () =>
    Effect.gen(function* () {
      const result = yield* agentfx(run, { env: { GEMINI_API_KEY: "" } })
      expect(result.code).toBe(0)
      expect(result.stderr).toContain("No API key is set (GEMINI_API_KEY is empty; GEMINI_API_KEY, GOOGLE_API_KEY, ZAI_API_KEY, OPENAI_API_KEY)")
    })
  )

  it.scopedLive("an unknown provider is a usage error (exit 2) listing the choices", () =>
    Effect.gen(function* () {
      const result = yield* agentfx([...run, "--provider", "claude"])
      expect(result.code).toBe(2)
      expect(result.stderr).toBe("agentfx: --provider claude: the choices are emulator, gemini, glm, glm-coding, openai\n")
      expect(result.stdout).toBe("")
    })
  )

  it.scopedLive("--base-url with the in-process emulator is a usage error", () =>
    Effect.gen(function* () {
      const result = yield* agentfx([...run, "--provider", "emulator", "--base-url", "http://127.0.0.1:1"])
      expect(result.code).toBe(2)
      expect(result.stderr).toContain("--base-url does not apply to the in-process emulator")
    })
  )
})
