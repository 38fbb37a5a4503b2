import { Options } from "@effect/cli"
import * as Option from "effect/Option"
import * as Provider from "../Provider.js"

const positive = (name: string) =>
  Options.integer(name).pipe(
    Options.filterMap((n) => (n >= 1 ? Option.some(n) : Option.none()), `--${name} must be a whole number of at least 1`)
  )

export const provider = Options.choice("provider", Provider.names).pipe(
  Options.withDescription(
    "The model provider. Default: gemini when GEMINI_API_KEY or GOOGLE_API_KEY is set, else glm when ZAI_API_KEY is, else openai when OPENAI_API_KEY is, else the in-process emulator (an offline rule model, no network). glm-coding is Z.AI's GLM Coding Plan endpoint."
  ),
  Options.optional
)

export const model = Options.text("model").pipe(
  Options.withDescription("The model name (default: the provider's, or GEMINI_MODEL / ZAI_MODEL / OPENAI_MODEL)."),
  Options.optional
)

export const baseUrl = Options.text("base-url").pipe(
  Options.withDescription(
    "The provider's endpoint (a proxy, a local OpenAI-compatible server, or an emulator started with `agentfx emulator`; default: the provider's, or GEMINI_BASE_URL / ZAI_BASE_URL / OPENAI_BASE_URL)."
  ),
  Options.optional
)

export const system = Options.text("system").pipe(Options.withDescription("The system instruction."), Options.optional)

export const maxTurns = positive("max-turns").pipe(
  Options.withDescription("Model turns per message before the run stops (default 10)."),
  Options.optional
)

export const toolConcurrency = positive("concurrency").pipe(
  Options.withDescription("Tool calls of one model turn that run at once (default 10; 1 runs them one by one)."),
  Options.optional
)

export const root = Options.directory("root", { exists: "yes" }).pipe(
  Options.withDescription("The directory read_file and list_dir are confined to."),
  Options.withDefault(".")
)

export const allowHost = Options.text("allow-host").pipe(
  Options.withDescription("A host fetch_url may fetch (exact, or *.example.com for its subdomains); repeatable. Without one, fetch_url is not offered."),
  Options.repeated
)

export const yes = Options.boolean("yes").pipe(
  Options.withAlias("y"),
  Options.withDescription("Approve every tool call without asking (fetch_url asks otherwise).")
)

/** The options of `run` and `chat` that choose the model and the tools. */
export const agent = {
  provider,
  model,
  baseUrl,
  system,
  maxTurns,
  concurrency: toolConcurrency,
  root,
  allowHost,
  yes
}

export interface AgentArgs {
  readonly provider: Option.Option<Provider.Name>
  readonly model: Option.Option<string>
  readonly baseUrl: Option.Option<string>
  readonly system: Option.Option<string>
  readonly maxTurns: Option.Option<number>
  readonly concurrency: Option.Option<number>
  readonly root: string
  readonly allowHost: ReadonlyArray<string>
  readonly yes: boolean
}

export const settings = (args: Pick<AgentArgs, "model" | "baseUrl">): Provider.Settings => ({
  model: Option.getOrUndefined(args.model),
  baseUrl: Option.getOrUndefined(args.baseUrl)
})
