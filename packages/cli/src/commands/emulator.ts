import { Emulator, Policy } from "@agentfx/emulator"
import { Command, Options } from "@effect/cli"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { createServer } from "node:net"
import { RunFailed } from "../CliError.js"
import { Io } from "../Io.js"

const port = Options.integer("port").pipe(
  Options.filterMap((n) => (n >= 0 && n <= 65535 ? Option.some(n) : Option.none()), "--port is a TCP port, 0 to 65535"),
  Options.withDescription("The port on 127.0.0.1 (default 0: any free port)."),
  Options.withDefault(0)
)

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

/** What the command prints once the emulator listens. */
export const banner = (emulator: Emulator.Service): string =>
  [
    `agentfx emulator on ${emulator.url} — the offline rule model answers; Ctrl-C stops it.`,
    `  Gemini          ${emulator.geminiBaseUrl}    (--provider gemini --base-url …, or GEMINI_BASE_URL)`,
    `  OpenAI          ${emulator.openAIBaseUrl()}    (--provider openai --base-url …, or OPENAI_BASE_URL)`,
    `  GLM (general)   ${emulator.glmBaseUrl("general")}    (--provider glm --base-url …, or ZAI_BASE_URL)`,
    `  GLM (coding)    ${emulator.glmBaseUrl("coding")}    (--provider glm-coding --base-url …)`,
    `  API key         ${emulator.apiKey}    (as GEMINI_API_KEY, OPENAI_API_KEY or ZAI_API_KEY)`
  ].join("\n")

export const command = Command.make("emulator", { port }, (args) =>
  Effect.gen(function* () {
    const io = yield* Io
    yield* checkFree(args.port)
    yield* Effect.scoped(
      Effect.gen(function* () {
        const emulator = yield* Emulator.make({ policy: Policy.offline, port: args.port })
        yield* io.out(`${banner(emulator)}\n`)
        yield* io.interrupted
      })
    )
    yield* io.out("emulator stopped\n")
  })
).pipe(
  Command.withDescription(
    "Starts the provider emulator on 127.0.0.1 — Gemini REST and OpenAI-compatible chat completions (OpenAI and GLM routes), answered by the offline rule model — and prints its base URLs and the API key to use, until Ctrl-C. Point any agentfx command or SDK at it to run without a real model."
  )
)
