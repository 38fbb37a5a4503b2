import { describe, expect, it } from "@effect/vitest"
import { Io } from "@agentfx/cli"
import { LanguageModel, ModelError, Turn } from "@agentfx/core"
import * as ConfigError from "effect/ConfigError"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as WithModel from "../src/internal/withModel.js"
import * as Provider from "../src/Provider.js"
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

describe("the provider module's helpers, in process", () => {
  const gemini: Provider.Choice = { name: "gemini", reason: "GOOGLE_API_KEY is set" }
  const flagged: Provider.Choice = { name: "gemini", reason: "--provider" }
  const offline: Provider.Choice = { name: "emulator", reason: "no API key is set (GEMINI_API_KEY, GOOGLE_API_KEY, ZAI_API_KEY, OPENAI_API_KEY)" }
  const withEnv = (env: Record<string, string>) => Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env))))

  it.effect("isSet: a variable with a value is set; blank or absent is not", () =>
    Effect.gen(function* () {
      const env = { FULL: "v", BLANK: "  " }
      const seen = yield* Effect.all([Provider.isSet("FULL"), Provider.isSet("BLANK"), Provider.isSet("ABSENT")]).pipe(withEnv(env))
      expect(seen).toStrictEqual([true, false, false])
    })
  )

  it("configProblem: And and Or flattened, each problem once, WHERE: what unless the message names it", () => {
    const bad = ConfigError.InvalidData(["GEMINI", "MODEL"], "must not be blank")
    const error = ConfigError.And(
      ConfigError.Or(bad, ConfigError.InvalidData(["GEMINI", "MODEL"], "must not be blank")),
      ConfigError.And(
        ConfigError.InvalidData(["GEMINI_BASE_URL"], "GEMINI_BASE_URL must be an http:// or https:// URL"),
        ConfigError.Or(ConfigError.InvalidData([], "no key at all"), ConfigError.MissingData(["OPENAI_API_KEY"], "Expected OPENAI_API_KEY to exist"))
      )
    )
    expect(Provider.configProblem(error)).toBe(
      "GEMINI_MODEL: must not be blank; GEMINI_BASE_URL must be an http:// or https:// URL; no key at all; OPENAI_API_KEY: Expected OPENAI_API_KEY to exist"
    )
    expect(Provider.configProblem(ConfigError.InvalidData(["X"], "is odd"))).toBe("X: is odd")
  })

  it.effect("effectiveBaseUrl: --base-url first, else the provider's variable unless blank; the emulator's own", () =>
    Effect.gen(function* () {
      const none = { model: undefined, baseUrl: undefined }
      const given = { model: undefined, baseUrl: "http://127.0.0.1:1/given" }
      const urls = yield* Effect.all([
        Provider.effectiveBaseUrl(gemini, given).pipe(withEnv({ GEMINI_BASE_URL: "http://127.0.0.1:2/env" })),
        Provider.effectiveBaseUrl(gemini, none).pipe(withEnv({ GEMINI_BASE_URL: "http://127.0.0.1:2/env" })),
        Provider.effectiveBaseUrl(gemini, none).pipe(withEnv({ GEMINI_BASE_URL: "  " })),
        Provider.effectiveBaseUrl(gemini, none).pipe(withEnv({ GEMINI_BASE_URL: "" })),
        Provider.effectiveBaseUrl(gemini, none).pipe(withEnv({})),
        Provider.effectiveBaseUrl(offline, given).pipe(withEnv({})),
        Provider.effectiveBaseUrl(offline, none).pipe(withEnv({ "": "http://127.0.0.1:3/unnamed" }))
      ])
      expect(urls).toStrictEqual(["http://127.0.0.1:1/given", "http://127.0.0.1:2/env", undefined, undefined, undefined, "http://127.0.0.1:1/given", undefined])
    })
  )

  it("refused: the variable that was set, else the provider's; the status when there is one", () => {
    const unauthorized = new ModelError.Unauthorized({ message: "no", status: 403 })
    const messages = [
      Provider.refused(gemini, unauthorized),
      Provider.refused(flagged, new ModelError.Unauthorized({ message: "no" })),
      Provider.refused(flagged, new ModelError.Unauthorized({ message: "no", status: undefined }), "--offline"),
      Provider.refused(offline, unauthorized)
    ].map((error) => [error.provider, error.refused, error.message])
    expect(messages).toStrictEqual([
      ["gemini", true, "gemini refused the API key (403): check GOOGLE_API_KEY, or run offline with --provider emulator"],
      ["gemini", true, "gemini refused the API key: check GEMINI_API_KEY or GOOGLE_API_KEY, or run offline with --provider emulator"],
      ["gemini", true, "gemini refused the API key: check GEMINI_API_KEY or GOOGLE_API_KEY, or run offline with --offline"],
      ["emulator", true, "emulator refused the API key (403): check , or run offline with --provider emulator"]
    ])
  })

  it("announcement and describe: a real provider's model and base URL, the emulator's answers", () => {
    const service = { provider: "gemini", model: "gemini-2.5-flash" } as LanguageModel.Service
    const settings = { model: undefined, baseUrl: "http://127.0.0.1:4/v1" }
    expect(Provider.announcement(gemini, service, settings, "tape.json")).toStrictEqual({ choice: gemini, model: "gemini-2.5-flash", baseUrl: "http://127.0.0.1:4/v1" })
    expect(Provider.announcement(offline, service, settings, "tape.json")).toStrictEqual({ choice: offline, answers: "tape.json" })
    expect([
      Provider.describe({ choice: gemini, model: "gemini-2.5-flash", baseUrl: "http://127.0.0.1:4/v1" }),
      Provider.describe({ choice: flagged, model: "gemini-2.5-flash" })
    ]).toStrictEqual([
      "provider: gemini, model gemini-2.5-flash at http://127.0.0.1:4/v1 (GOOGLE_API_KEY is set)",
      "provider: gemini, model gemini-2.5-flash (chosen with --provider)"
    ])
  })
})

describe("withModel's helpers and withModelEarly, in process", () => {
  it("detailsOf keeps details only when they are text; isRefusal is Unauthorized alone", () => {
    const errors = [{ _tag: "MalformedResponse", details: "sum: expected a number" }, { _tag: "MalformedResponse", details: 3 }, { _tag: "Timeout" }]
    expect(errors.map(WithModel.detailsOf)).toStrictEqual([{ details: "sum: expected a number" }, {}, {}])
    expect([WithModel.isRefusal({ _tag: "Unauthorized" }), WithModel.isRefusal({ _tag: "RateLimited" })]).toStrictEqual([true, false])
  })

  /** withModelEarly with no key set, on a memory terminal: what the body saw, and what was printed on stderr. */
  const early = <A, E>(body: Effect.Effect<A, E, LanguageModel.LanguageModel>, settings: Provider.Settings = { model: undefined, baseUrl: undefined }) =>
    Effect.gen(function* () {
      const terminal = yield* Io.memory()
      const result = yield* Effect.either(WithModel.withModelEarly(undefined, settings, () => body)).pipe(
        Effect.provide(terminal.layer),
        Effect.withConfigProvider(ConfigProvider.fromMap(new Map()))
      )
      return { result, stderr: yield* terminal.stderr }
    })

  const question = { transcript: [Turn.user("what is 2 + 3?")], declarations: [] }
  const offlineAnswer = "I am the agentfx emulator, running offline (no API key is set), so I cannot really answer that. I was given no tools."
  const announced = "provider: emulator — the offline rule model, in-process on 127.0.0.1 through the Gemini provider, no network. No API key is set (GEMINI_API_KEY, GOOGLE_API_KEY, ZAI_API_KEY, OPENAI_API_KEY): set one to use a real model.\n"

  it.scopedLive("offline, the body gets a stand-in named gemini / emulator (or --model) whose generate and stream reach the emulator", () =>
    Effect.gen(function* () {
      const body = Effect.gen(function* () {
        const model = yield* LanguageModel.LanguageModel
        const generated = yield* model.generate(question)
        const streamed = yield* LanguageModel.collect(model.stream(question))
        return [model.provider, model.model, Turn.text(generated.turn), Turn.text(streamed.turn)]
      })
      const plain = yield* early(body)
      expect(plain).toStrictEqual({ result: Either.right(["gemini", "emulator", offlineAnswer, offlineAnswer]), stderr: announced })
      const named = yield* early(Effect.map(LanguageModel.LanguageModel, (model) => model.model), { model: "gemini-2.5-pro", baseUrl: undefined })
      expect(named).toStrictEqual({ result: Either.right("gemini-2.5-pro"), stderr: announced })
    })
  )

  it.scopedLive("offline with --base-url: the usage error, nothing announced, the body never run", () =>
    Effect.gen(function* () {
      const outcome = yield* early(Effect.dieMessage("the body ran"), { model: undefined, baseUrl: "http://127.0.0.1:1" })
      expect(outcome).toStrictEqual({ result: Either.left(Provider.baseUrlWithEmulator()), stderr: "" })
    })
  )
})
