/** `agentfx emulator`: the provider emulator on 127.0.0.1 until Ctrl-C, which stops it with exit code 130 like any command. */
import { Emulator, Policy } from "@agentfx/emulator"
import * as Effect from "effect/Effect"
import { createServer } from "node:net"
import { Interrupted, RunFailed } from "../CliError.js"
import type { Handler } from "../commands/Command.js"
import * as Defaults from "../Defaults.js"
import type * as EmulatorContract from "../contracts/emulator.js"
import { Io } from "../Io.js"

/** Fails with a clear message when the port is taken (the emulator would otherwise crash on it). */
const checkFree = (port: number): Effect.Effect<void, RunFailed> =>
  port === 0
    ? Effect.void
    : Effect.async<void, RunFailed>((resume) => {
        const probe = createServer()
        probe.once("error", (error: NodeJS.ErrnoException) =>
          resume(Effect.fail(new RunFailed({ message: `cannot listen on 127.0.0.1:${port}: ${error.code === "EADDRINUSE" ? "the port is in use" : error.message}` })))
        )
        probe.listen(port, "127.0.0.1", () => probe.close(() => resume(Effect.void)))
      })

/** The Live WebSocket endpoint, as the SDK derives it from the Gemini base URL. */
const liveUrl = (emulator: Emulator.Service): string =>
  `${emulator.url.replace(/^http/, "ws")}/ws/google.ai.generativelanguage.v1beta.GenerativeService.BidiGenerateContent`

/** What the command prints once the emulator listens. */
export const banner = (emulator: Emulator.Service): string =>
  [
    `agentfx emulator on ${emulator.url} — the offline rule model answers; Ctrl-C stops it.`,
    `  Gemini          ${emulator.geminiBaseUrl}    (--provider gemini --base-url …, or GEMINI_BASE_URL)`,
    `  Gemini Live     ${liveUrl(emulator)}    (the SDK's live.connect from the Gemini base URL; agentfx live --provider gemini --base-url …)`,
    `  OpenAI          ${emulator.openAIBaseUrl()}    (--provider openai --base-url …, or OPENAI_BASE_URL)`,
    `  GLM (general)   ${emulator.glmBaseUrl("general")}    (--provider glm --base-url …, or ZAI_BASE_URL)`,
    `  GLM (coding)    ${emulator.glmBaseUrl("coding")}    (--provider glm-coding --base-url …)`,
    `  API key         ${emulator.apiKey}    (as GEMINI_API_KEY, OPENAI_API_KEY or ZAI_API_KEY)`
  ].join("\n")

/** The same, as `--json` prints it (one line, so a script can read it as soon as it appears): `Contracts.Emulator`. */
export const bannerJson = (emulator: Emulator.Service): string =>
  JSON.stringify({
    url: emulator.url,
    gemini: emulator.geminiBaseUrl,
    geminiLive: liveUrl(emulator),
    openai: emulator.openAIBaseUrl(),
    glm: emulator.glmBaseUrl("general"),
    glmCoding: emulator.glmBaseUrl("coding"),
    apiKey: emulator.apiKey
  } satisfies typeof EmulatorContract.Emulator.Encoded)

export const handler: Handler = ({ options }) =>
  Effect.gen(function* () {
    const io = yield* Io
    const json = options.has("json")
    const port = options.number("port") ?? Defaults.emulatorPort.port
    yield* checkFree(port)
    yield* Effect.scoped(
      Effect.gen(function* () {
        // Its record of requests has no reader here (no endpoint shows it): kept, it would only cost memory.
        const emulator = yield* Emulator.make({ policy: Policy.offline, port, record: false })
        yield* io.out(`${json ? bannerJson(emulator) : banner(emulator)}\n`)
        yield* io.interrupted
      })
    )
    // Stopped, and closed by now (the scope has ended): Ctrl-C ends every command the same way.
    return yield* Effect.fail(new Interrupted())
  })
