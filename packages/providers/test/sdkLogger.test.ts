/**
 * The SDKs' log lines, driven directly: each call is one Debug line on the runtime's logger, its arguments joined
 * as the console would (strings as they are, objects inspected on one line), scrubbed, annotated with the SDK.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, HashMap, List, Logger, LogLevel } from "effect"
import * as SdkLogger from "../src/internal/sdkLogger.js"

interface Line {
  readonly level: string
  readonly message: unknown
  readonly sdk: unknown
}

const capture = (lines: Array<Line>) =>
  Logger.replace(
    Logger.defaultLogger,
    Logger.make(({ annotations, logLevel, message }) => {
      lines.push({ level: logLevel.label, message: List.isList(message) ? List.toArray(message) : message, sdk: HashMap.unsafeGet(annotations, "sdk") })
    })
  )

describe("SdkLogger", () => {
  it.effect("each method writes one scrubbed Debug line, annotated with the SDK's name", () => {
    const lines: Array<Line> = []
    return Effect.gen(function* () {
      const logger = yield* SdkLogger.make("openai", (text) => text.replaceAll("sk-1", "[redacted]"))
      logger.error("Could not parse message into JSON:", "data: {sk-1")
      logger.warn("w")
      logger.info("i")
      logger.debug("d")
      expect(lines).toEqual([
        { level: "DEBUG", message: ["Could not parse message into JSON: data: {[redacted]"], sdk: "openai" },
        { level: "DEBUG", message: ["w"], sdk: "openai" },
        { level: "DEBUG", message: ["i"], sdk: "openai" },
        { level: "DEBUG", message: ["d"], sdk: "openai" }
      ])
    }).pipe(Effect.provide(capture(lines)), Logger.withMinimumLogLevel(LogLevel.Debug))
  })

  it.effect("strings are written as they are; other values inspected on one line, four levels deep", () => {
    const lines: Array<Line> = []
    return Effect.gen(function* () {
      const logger = yield* SdkLogger.make("genai", (text) => text)
      const deep = { a: { b: { c: { d: { e: { f: 1 } } } } } }
      const wide = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`key${i}`, `value ${i}`]))
      logger.warn("text 'quoted'", 42, deep, wide)
      const [line] = lines
      const text = (line!.message as ReadonlyArray<string>)[0]!
      expect(text.startsWith("text 'quoted' 42 { a: { b: { c: { d: { e: [Object] } } } } } { key0: 'value 0'")).toBe(true)
      expect(text).not.toContain("\n")
    }).pipe(Effect.provide(capture(lines)), Logger.withMinimumLogLevel(LogLevel.Debug))
  })
})
