/**
 * `agentfx emulator --json`: where the emulator listens and the key it takes, as one line once it listens.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

const loopback = (scheme: string, path: string) => Schema.String.pipe(Schema.pattern(new RegExp(`^${scheme}://127\\.0\\.0\\.1:\\d+${path}$`)))

/**
 * What `agentfx emulator --json` prints, on one line, as soon as it listens (then it runs until Ctrl-C).
 *
 * @since 0.1.0
 */
export const Emulator = Schema.Struct({
  url: loopback("http", ""),
  /** For `--provider gemini --base-url`, or GEMINI_BASE_URL. */
  gemini: loopback("http", ""),
  /** The Gemini Live WebSocket endpoint, as the SDK derives it from the Gemini base URL. */
  geminiLive: loopback("ws", "/ws/google\\.ai\\.generativelanguage\\.v1beta\\.GenerativeService\\.BidiGenerateContent"),
  openai: loopback("http", "/v1"),
  glm: loopback("http", "/api/paas/v4"),
  glmCoding: loopback("http", "/api/coding/paas/v4"),
  /** The key to send (as GEMINI_API_KEY, OPENAI_API_KEY or ZAI_API_KEY). */
  apiKey: Schema.NonEmptyString
}).annotations({ identifier: "Emulator", title: "agentfx emulator --json" })
