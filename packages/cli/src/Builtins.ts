/**
 * The tools the `agentfx` command gives the model: `clock`, `calculator`, `read_file` and `list_dir` (confined to
 * `--root`), and `fetch_url` (only for the hosts given with `--allow-host`, and only after approval unless `--yes`).
 * For evals, a function a scenario declares that is not one of these gets a stand-in that fails with "mock this
 * function", so a case that needs it says so instead of reaching anything real.
 *
 * @example
 * const registry = Builtins.registry({ root: ".", allowHosts: ["example.com"] })
 *
 * @since 0.1.0
 */
import type { FunctionDeclaration, Json } from "@agentfx/core"
import { Registry, Tool } from "@agentfx/core"
import { Calculator, Clock, FetchUrl, Files } from "@agentfx/tools"
import type * as FileSystem from "@effect/platform/FileSystem"
import * as Either from "effect/Either"

export interface Options {
  /** The directory `read_file` and `list_dir` are confined to. */
  readonly root: string
  /** Hosts `fetch_url` may fetch; with none, `fetch_url` is left out (see `fetchAlways`). */
  readonly allowHosts: ReadonlyArray<string>
  /** Whether `fetch_url` asks for approval before each call (default true). */
  readonly approval?: boolean
  /** Offer `fetch_url` even with no allowed host (every URL is then refused); evals use this. */
  readonly fetchAlways?: boolean
}

/** The names of the built-in tools. */
export const names: ReadonlyArray<string> = ["clock", "calculator", "read_file", "list_dir", "fetch_url"]

const needingApproval = <R>(tool: Tool.Tool<R>): Tool.Tool<R> => ({ ...tool, needsApproval: () => true })

/** The built-in tools for these options. */
export const tools = (options: Options): ReadonlyArray<Tool.Tool<FileSystem.FileSystem>> => {
  const base: Array<Tool.Tool<FileSystem.FileSystem>> = [Clock.tool, Calculator.tool, ...Files.tools({ root: options.root })]
  if (options.allowHosts.length === 0 && options.fetchAlways !== true) return base
  const fetch = FetchUrl.make({ allowHosts: options.allowHosts })
  return [...base, options.approval === false ? fetch : needingApproval(fetch)]
}

/** The built-in tools as a registry. */
export const registry = (options: Options): Registry.Registry<FileSystem.FileSystem> => Registry.unsafeMake(...tools(options))

/** One line of `agentfx tools`. */
export interface Entry {
  readonly name: string
  readonly description: string
  readonly parameters: Json.JsonObject
  /** When the tool is offered and whether it asks first. */
  readonly availability: string
}

const availability: Record<string, string> = {
  clock: "always",
  calculator: "always",
  read_file: "always; confined to --root (default: the current directory)",
  list_dir: "always; confined to --root (default: the current directory)",
  fetch_url: "only with --allow-host HOST (repeatable); asks for approval before each call unless --yes"
}

/** Every built-in tool, as `agentfx tools` lists it. */
export const catalogue: ReadonlyArray<Entry> = tools({ root: ".", allowHosts: [], fetchAlways: true }).map((tool) => ({
  name: tool.name,
  description: tool.name === "fetch_url" ? "Fetches a web page or API response with an HTTP GET to an allowed host. Returns status, content type and body text." : tool.description,
  parameters: tool.declaration.parameters,
  availability: availability[tool.name] ?? "always"
}))

/** What the stand-in for a declared but not built-in function answers the model. */
export const notImplementedMessage = (name: string): string =>
  `"${name}" is not a built-in tool of the agentfx CLI, so it has no implementation here: mock this function in the eval case (mock_function_responses.${name})`

/**
 * A stand-in for a function a scenario declares that is not built in: declared exactly as the scenario declares
 * it, failing every call with `notImplementedMessage`.
 */
export const standIn = (declaration: FunctionDeclaration.FunctionDeclaration): Tool.Tool =>
  Either.getOrThrow(
    Tool.fromFunction(declaration.name, {
      description: declaration.description,
      parameters: declaration.parameters,
      run: () => Promise.reject(new Error(notImplementedMessage(declaration.name)))
    })
  )
