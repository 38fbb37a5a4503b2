/**
 * The options of `run` and `chat` (see `commands/options.ts`) read into what the handlers use, with the checks
 * that need the file system or the tools: `--root` must be a directory, `--scenario` a file, each `--allow-host` a
 * host fetch_url can match.
 */
import type { Agent } from "@agentfx/core"
import { FetchUrl } from "@agentfx/tools"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Effect from "effect/Effect"
import type * as Argv from "../Argv.js"
import { UsageError } from "../CliError.js"
import * as FileProblem from "./fileProblem.js"
import type * as Provider from "../Provider.js"

export interface AgentArgs {
  readonly provider: Provider.Name | undefined
  readonly settings: Provider.Settings
  readonly system: string | undefined
  readonly maxTurns: number | undefined
  readonly concurrency: number | undefined
  readonly root: string
  readonly allowHost: ReadonlyArray<string>
  readonly yes: boolean
  readonly request: RequestOptions
}

/** `--model`, `--base-url` and `--max-response-bytes`. */
export const settings = (options: Argv.Values): Provider.Settings => ({
  model: options.text("model"),
  baseUrl: options.text("base-url"),
  maxResponseBytes: options.bytes("max-response-bytes")
})

/** What the loop is given of how to ask the model. */
export type RequestOptions = Pick<Agent.Options<never>, "firstByteTimeout" | "idleTimeout" | "turnTimeout" | "runTimeout" | "temperature">

/**
 * `--first-byte-timeout`, `--idle-timeout`, `--turn-timeout`, `--run-timeout` and `--temperature` (each undefined
 * when not given).
 */
export const request = (options: Argv.Values): RequestOptions => ({
  firstByteTimeout: options.millis("first-byte-timeout"),
  idleTimeout: options.millis("idle-timeout"),
  turnTimeout: options.millis("turn-timeout"),
  runTimeout: options.millis("run-timeout"),
  temperature: options.number("temperature")
})

/** `--provider` (already checked against the names). */
export const provider = (options: Argv.Values): Provider.Name | undefined => options.text("provider") as Provider.Name | undefined

/** A directory option's value, or a `UsageError` saying it does not exist or is not a directory. */
export const directory = (option: string, path: string): Effect.Effect<string, UsageError, FileSystem.FileSystem> =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const info = yield* Effect.either(fs.stat(path))
    if (info._tag === "Left") {
      return yield* Effect.fail(new UsageError({ message: `${option} ${path}: ${FileProblem.isNotFound(info.left) ? "no such directory" : FileProblem.describe(info.left)}` }))
    }
    if (info.right.type !== "Directory") return yield* Effect.fail(new UsageError({ message: `${option} ${path}: not a directory` }))
    return path
  })

/**
 * A file option's value (`--scenario FILE`), or a `UsageError` saying it does not exist or is not a regular file: in
 * words, not the platform's (`NotFound: FileSystem.stat (…): ENOENT…`), and before anything runs.
 */
export const file = (option: string, path: string): Effect.Effect<string, UsageError, FileSystem.FileSystem> =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const info = yield* Effect.either(fs.stat(path))
    const refuse = (why: string) => Effect.fail(new UsageError({ message: `${option} ${path}: ${why}` }))
    if (info._tag === "Left") return yield* refuse(FileProblem.isNotFound(info.left) ? "no such file" : FileProblem.describe(info.left))
    if (info.right.type !== "File") return yield* refuse(`it is ${FileProblem.typeName(info.right.type)}, not a file`)
    return path
  })

/**
 * `--allow-host` (repeatable), each read as fetch_url reads its allow-list: one that could never match a URL — empty,
 * a URL instead of a host, a misplaced wildcard — is a `UsageError` before anything runs, not a tool that fails later.
 */
export const allowHosts = (options: Argv.Values): Effect.Effect<ReadonlyArray<string>, UsageError> =>
  Effect.gen(function* () {
    const hosts = options.list("allow-host")
    for (const host of hosts) {
      const entry = FetchUrl.parseEntry(host)
      if (entry instanceof FetchUrl.AllowListInvalid) {
        return yield* Effect.fail(new UsageError({ message: `--allow-host ${JSON.stringify(host)}: ${entry.reason} (e.g. example.com, *.example.com, 127.0.0.1:8080)` }))
      }
    }
    return hosts
  })

export const read = (options: Argv.Values): Effect.Effect<AgentArgs, UsageError, FileSystem.FileSystem> =>
  Effect.gen(function* () {
    const allowHost = yield* allowHosts(options)
    const root = yield* directory("--root", options.text("root") ?? ".")
    const scenario = options.text("scenario")
    if (scenario !== undefined) yield* file("--scenario", scenario)
    return {
      provider: provider(options),
      settings: settings(options),
      system: options.text("system"),
      maxTurns: options.number("max-turns"),
      concurrency: options.number("concurrency"),
      root,
      allowHost,
      yes: options.has("yes"),
      request: request(options)
    }
  })
