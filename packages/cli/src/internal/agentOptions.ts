/**
 * The options of `run` and `chat` (see `commands/options.ts`) read into what the handlers use, with the checks
 * that need the file system: `--root` must be a directory.
 */
import type { Agent } from "@agentfx/core"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Effect from "effect/Effect"
import type * as Argv from "../Argv.js"
import { UsageError } from "../CliError.js"
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
    if (info._tag === "Left") return yield* Effect.fail(new UsageError({ message: `${option} ${path}: no such directory` }))
    if (info.right.type !== "Directory") return yield* Effect.fail(new UsageError({ message: `${option} ${path}: not a directory` }))
    return path
  })

export const read = (options: Argv.Values): Effect.Effect<AgentArgs, UsageError, FileSystem.FileSystem> =>
  Effect.map(directory("--root", options.text("root") ?? "."), (root) => ({
    provider: provider(options),
    settings: settings(options),
    system: options.text("system"),
    maxTurns: options.number("max-turns"),
    concurrency: options.number("concurrency"),
    root,
    allowHost: options.list("allow-host"),
    yes: options.has("yes"),
    request: request(options)
  }))
