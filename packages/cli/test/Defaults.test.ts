/**
 * The defaults of `agentfx` (src/Defaults.ts), each read where it shows: on the wire (the emulator's record of the
 * requests, a server that counts what reaches it) or in the command's output — with no option or variable that
 * would set it. README's table is the module's, and every entry names a test that exists.
 */
import { Defaults, Io } from "@agentfx/cli"
import { Fault, Policy } from "@agentfx/emulator"
import { describe, expect, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as TestClock from "effect/TestClock"
import * as fs from "node:fs"
import { createServer, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { agentfx, count, emulator, tempDir, untilEnd, viaGemini, writeFiles } from "./support/cli.js"

const packages = fileURLToPath(new URL("../../", import.meta.url))

interface RunJson {
  readonly turns: number
  readonly stopReason: unknown
  readonly calls: ReadonlyArray<{ readonly name: string; readonly isError: boolean; readonly response: Record<string, unknown> }>
}

/**
 * A server on 127.0.0.1 that holds every request until `release`: `reached(n)` waits until n have come. What runs at
 * once is what reached it while none was answered.
 */
const gate = Effect.gen(function* () {
  const pending: Array<ServerResponse> = []
  const waiters: Array<{ readonly count: number; readonly done: Deferred.Deferred<void> }> = []
  let arrived = 0
  const server = createServer((request, response) => {
    request.resume()
    arrived++
    pending.push(response)
    for (const waiter of waiters) if (arrived >= waiter.count) Deferred.unsafeDone(waiter.done, Effect.void)
  })
  const port = yield* Effect.acquireRelease(
    Effect.async<number>((resume) => void server.listen(0, "127.0.0.1", () => resume(Effect.succeed((server.address() as AddressInfo).port)))),
    () => Effect.sync(() => (server.closeAllConnections(), server.close()))
  )
  const reached = (count: number) =>
    Effect.gen(function* () {
      const done = yield* Deferred.make<void>()
      waiters.push({ count, done })
      if (arrived >= count) yield* Deferred.succeed(done, undefined)
      yield* Deferred.await(done)
      return arrived
    })
  const release = Effect.sync(() => {
    for (const waiting of pending.splice(0)) if (!waiting.destroyed) waiting.writeHead(200, { "content-type": "text/plain" }).end("open")
  })
  return { port, reached, release }
})

/** What a fetch_url call came to: "answered", or the tag of its error (the handler's own, under the executor's). */
const outcome = (call: RunJson["calls"][number]): string => {
  if (!call.isError) return "answered"
  const error = call.response.error as { type: string; details?: { _tag?: string } }
  return error.details?._tag ?? error.type
}

describe("the defaults, read from the wire or the output", () => {
  it.scopedLive("a model that always calls a tool is asked 10 times, and the run stops with MaxTurns 10", () =>
    Effect.gen(function* () {
      const server = yield* emulator({ policy: Policy.fromFunction(() => ({ calls: [{ name: "clock", args: {} }] })) })
      const { env, flags } = viaGemini(server)
      const result = yield* agentfx(["run", "--json", ...flags, "what time is it?"], { env })
      expect(result.code).toBe(0)
      const run = JSON.parse(result.stdout) as RunJson
      expect([run.turns, run.stopReason]).toEqual([10, { _tag: "MaxTurns", maxTurns: 10 }])
      expect(yield* server.received).toBe(10)
    })
  )

  it.scopedLive("a final answer that never matches --output-schema is sent back twice, and the run fails after the third", () =>
    Effect.gen(function* () {
      const server = yield* emulator({ policy: Policy.fromFunction(() => ({ text: "not JSON at all" })) })
      const { env, flags } = viaGemini(server)
      const dir = yield* tempDir
      writeFiles(dir, { "answer.json": JSON.stringify({ type: "object", properties: { sum: { type: "number" } }, required: ["sum"] }) })
      const result = yield* agentfx(["run", "--json", ...flags, "--output-schema", path.join(dir, "answer.json"), "what is 2 + 3?"], { env })
      expect([result.code, result.stdout]).toEqual([1, ""])
      expect(result.stderr).toContain("after 3 attempts")
      expect(yield* server.received).toBe(3)
    })
  )

  it.scoped("10 calls of one turn run at once: the 11th starts only once one of the first 10 has answered", () =>
    Effect.gen(function* () {
      // The first 10 are held until fetch_url's own timeout (10s) ends them; only then do the last 2 start.
      const fetches = yield* gate
      const url = `http://127.0.0.1:${fetches.port}/page`
      const server = yield* emulator({ policy: Policy.script([{ calls: Array.from({ length: 12 }, () => ({ name: "fetch_url", args: { url } })) }, { text: "Fetched." }]) })
      const { env, flags } = viaGemini(server)
      const fiber = yield* Effect.fork(agentfx(["run", "--json", "--yes", "--allow-host", `127.0.0.1:${fetches.port}`, ...flags, "fetch them"], { env }))
      expect(yield* fetches.reached(10)).toBe(10)
      yield* TestClock.adjust(Duration.seconds(10))
      yield* fetches.reached(12)
      yield* fetches.release
      const result = yield* Fiber.join(fiber)
      expect(result.code).toBe(0)
      expect((JSON.parse(result.stdout) as RunJson).calls.map(outcome)).toEqual([...Array<string>(10).fill("FetchTimeout"), "answered", "answered"])
    })
  )

  it.scoped("a streamed answer that never starts is given up after 2m, one that stops midway after 1m, and each is retried", () =>
    Effect.gen(function* () {
      const server = yield* emulator({ policy: Policy.script([{ text: "Never finished." }, { text: "Here it is." }]) })
      yield* server.inject(Fault.stall)
      yield* server.inject(Fault.stallMidStream(1))
      const { env, flags } = viaGemini(server)
      const result = yield* untilEnd(yield* Effect.fork(agentfx(["run", ...flags, "hello"], { env })))
      expect(result.code).toBe(0)
      expect(result.stderr).toContain("the model sent nothing within 2m (firstByteTimeout); retrying (attempt 2/4")
      expect(result.stderr).toContain("the model's stream stalled: nothing for 1m (idleTimeout); retrying (attempt 3/4")
      expect(result.stdout).toContain("Here it is.")
    })
  )

  it.scoped("an answer that never comes is given up after 10m, and the run after 15m of waiting on the model", () =>
    Effect.gen(function* () {
      const server = yield* emulator()
      yield* server.inject(Fault.stall, { times: 10 })
      const { env, flags } = viaGemini(server)
      // --json asks for whole answers (not streamed): only the bound on one answer and the run's apply.
      const result = yield* untilEnd(yield* Effect.fork(agentfx(["run", "--json", ...flags, "hello"], { env })))
      expect([result.code, result.stdout]).toEqual([1, ""])
      expect(result.stderr).toContain("the model did not finish its answer within 10m (turnTimeout); retrying (attempt 2/4")
      expect(result.stderr).toContain("agentfx: ModelTimeout: the run has waited 15m on the model in all, its limit (runTimeout)")
      expect(yield* server.received).toBe(2)
    })
  )

  it.scoped("a model that stays overloaded is asked 4 times, about 1 s, 2 s and 4 s apart, through Gemini and through OpenAI", () =>
    Effect.gen(function* () {
      const server = yield* emulator()
      yield* server.inject(Fault.overloaded(), { times: 100 })
      const routes = [
        viaGemini(server),
        { env: { OPENAI_API_KEY: server.apiKey }, flags: ["--provider", "openai", "--base-url", server.openAIBaseUrl()] }
      ]
      for (const { env, flags } of routes) {
        const before = yield* server.received
        const result = yield* untilEnd(yield* Effect.fork(agentfx(["run", ...flags, "hello"], { env })))
        expect(result.code, flags[1]).toBe(1)
        // The backoff is jittered by ±20 %, and a wait is said in whole seconds rounded up.
        expect(result.stderr, flags[1]).toMatch(/retrying \(attempt 2\/4, next in [12] s\)[\s\S]*retrying \(attempt 3\/4, next in [23] s\)[\s\S]*retrying \(attempt 4\/4, next in [45] s\)/)
        expect(count(result.stderr, "retrying ("), flags[1]).toBe(3)
        expect((yield* server.received) - before, flags[1]).toBe(4)
      }
    })
  )

  it.scoped("a provider's retry hint is obeyed up to 60 s; a longer one ends the run at once", () =>
    Effect.gen(function* () {
      const server = yield* emulator({ policy: Policy.script([{ text: "After the wait." }]) })
      const { env, flags } = viaGemini(server)
      yield* server.inject(Fault.rateLimited({ retryAfter: "60 seconds" }))
      const obeyed = yield* untilEnd(yield* Effect.fork(agentfx(["run", ...flags, "hello"], { env })))
      expect(obeyed.code).toBe(0)
      expect(obeyed.stderr).toContain("retrying (attempt 2/4, next in 1 min, as the provider asked)")
      expect(yield* server.received).toBe(2)
      yield* server.inject(Fault.rateLimited({ retryAfter: "61 seconds" }))
      const refused = yield* untilEnd(yield* Effect.fork(agentfx(["run", ...flags, "hello"], { env })))
      expect(refused.code).toBe(1)
      expect(refused.stderr).not.toContain("retrying (")
      expect(yield* server.received).toBe(3)
    })
  )

  it.scopedLive("an answer of more than 32 MiB fails the run, naming the limit", () =>
    Effect.gen(function* () {
      const server = yield* emulator({ policy: Policy.fromFunction(() => ({ text: "x".repeat(32 * 1024 * 1024) })) })
      const { env, flags } = viaGemini(server)
      const result = yield* agentfx(["run", "--json", ...flags, "say a lot"], { env })
      expect([result.code, result.stdout]).toEqual([1, ""])
      expect(result.stderr).toContain("the response is larger than the limit of 32 MiB (maxResponseBytes)")
    })
  )

  it.scopedLive("each provider's own model is asked for; the variable moves it and --model wins over the variable", () =>
    Effect.gen(function* () {
      const server = yield* emulator()
      const routes: ReadonlyArray<{ provider: string; model: string; variable: string; env: Record<string, string> }> = [
        { provider: "gemini", model: "gemini-2.5-flash", variable: "GEMINI_MODEL", env: { GEMINI_API_KEY: server.apiKey, GEMINI_BASE_URL: server.geminiBaseUrl } },
        { provider: "glm", model: "glm-4.7", variable: "ZAI_MODEL", env: { ZAI_API_KEY: server.apiKey, ZAI_BASE_URL: server.glmBaseUrl() } },
        { provider: "openai", model: "gpt-4.1-mini", variable: "OPENAI_MODEL", env: { OPENAI_API_KEY: server.apiKey, OPENAI_BASE_URL: server.openAIBaseUrl() } }
      ]
      for (const route of routes) {
        const asked = (extra: ReadonlyArray<string>, env: Record<string, string>) =>
          Effect.gen(function* () {
            const result = yield* agentfx(["run", "--provider", route.provider, ...extra, "hello"], { env: { ...route.env, ...env } })
            expect(result.code, route.provider).toBe(0)
            return (yield* server.requests).at(-1)?.model
          })
        expect(yield* asked([], {}), route.provider).toBe(route.model)
        expect(yield* asked([], { [route.variable]: "from-the-variable" }), route.provider).toBe("from-the-variable")
        expect(yield* asked(["--model", "from-the-flag"], { [route.variable]: "from-the-variable" }), route.provider).toBe("from-the-flag")
      }
    })
  )

  it.scopedLive("the key sent is GEMINI_API_KEY's when GOOGLE_API_KEY is set too, and --base-url wins over GEMINI_BASE_URL", () =>
    Effect.gen(function* () {
      const wanted = yield* emulator()
      const other = yield* emulator()
      const both = (gemini: string, google: string) => ({ GEMINI_API_KEY: gemini, GOOGLE_API_KEY: google, GEMINI_BASE_URL: other.geminiBaseUrl })
      const right = yield* agentfx(["run", "--base-url", wanted.geminiBaseUrl, "hello"], { env: both(wanted.apiKey, "AIza-not-this-one") })
      expect(right.code).toBe(0)
      expect(right.stderr).toMatch(/^provider: gemini, model gemini-2\.5-flash at .* \(GEMINI_API_KEY is set\)/)
      expect((yield* wanted.requests).map((request) => request.apiKey)).toEqual(["valid"])
      expect(yield* other.received).toBe(0)
      const wrong = yield* agentfx(["run", "--base-url", wanted.geminiBaseUrl, "hello"], { env: both("AIza-not-this-one", wanted.apiKey) })
      expect(wrong.code).toBe(1)
      expect((yield* wanted.requests).map((request) => request.apiKey)).toEqual(["valid", "invalid"])
    })
  )

  it.scoped("eval runs 4 cases at once: the 5th starts only once one of the first 4 has ended", () =>
    Effect.gen(function* () {
      // Each case fetches once; the first 4 are held until fetch_url's own timeout (10s), then the last 2 start.
      const fetches = yield* gate
      const dir = yield* tempDir
      const url = `http://127.0.0.1:${fetches.port}/page`
      writeFiles(dir, {
        "scenarios/web.md": `---\nname: web\ndescription: Fetches\navailable_functions:\n  - name: fetch_url\n    description: Fetches a page\n    parameters: { type: object, properties: { url: { type: string } }, required: [url] }\n---\nFetch.\n`,
        ...Object.fromEntries(
          Array.from({ length: 6 }, (_, i) => [
            `cases/case-${i + 1}.yaml`,
            `id: case-${i + 1}\nscenario: web\ninput: fetch it\nexpected_function_calls: [{ function_name: fetch_url }]\nx-cassette:\n  - calls: [{ name: fetch_url, args: { url: "${url}" } }]\n  - text: done\n`
          ])
        )
      })
      const fiber = yield* Effect.fork(
        agentfx(["eval", path.join(dir, "cases"), "--scenarios", path.join(dir, "scenarios"), "--allow-host", `127.0.0.1:${fetches.port}`, "--json"])
      )
      expect(yield* fetches.reached(4)).toBe(4)
      yield* TestClock.adjust(Duration.seconds(10))
      yield* fetches.reached(6)
      yield* fetches.release
      const result = yield* Fiber.join(fiber)
      const report = JSON.parse(result.stdout) as { cases: ReadonlyArray<{ calls: ReadonlyArray<{ isError: boolean }> }> }
      expect(report.cases.map((evalCase) => evalCase.calls.map((call) => call.isError))).toEqual([[true], [true], [true], [true], [false], [false]])
    })
  )

  it.scoped("an eval case the model never answers is an error after 2m", () =>
    Effect.gen(function* () {
      const server = yield* emulator()
      yield* server.inject(Fault.stall, { times: 10 })
      const dir = yield* tempDir
      writeFiles(dir, {
        "scenarios/plain.md": "---\nname: plain\ndescription: Talks\navailable_functions: []\n---\nTalk.\n",
        "cases/one.yaml": "id: silent\nscenario: plain\ninput: hello\nexpected_function_calls: []\n"
      })
      const { env, flags } = viaGemini(server)
      const result = yield* untilEnd(yield* Effect.fork(agentfx(["eval", path.join(dir, "cases"), "--scenarios", path.join(dir, "scenarios"), ...flags], { env })))
      expect(result.code).toBe(1)
      expect(result.stdout).toMatch(/✗ silent[\s\S]*error: the case timed out after 2m\n/)
      expect(yield* server.received).toBe(1)
    })
  )

  it.scopedLive("eval passes at a pass rate of 0.99 and fails below it", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const passing = (id: string) => `- id: ${id}\n  scenario: plain\n  input: hello\n  expected_function_calls: []\n  x-cassette: [{ text: hi }]\n`
      // Expects a call the cassette never makes.
      const failing = "- id: wrong\n  scenario: plain\n  input: hello\n  mock_function_responses: { notify: { response: { sent: true } } }\n  expected_function_calls: [{ function_name: notify }]\n  x-cassette: [{ text: hi }]\n"
      const ids = Array.from({ length: 99 }, (_, i) => `case-${i + 1}`)
      writeFiles(dir, {
        "scenarios/plain.md": "---\nname: plain\ndescription: Talks\navailable_functions:\n  - { name: notify, description: Tells the user, parameters: { type: object } }\n---\nTalk.\n",
        "at/cases.yaml": `${ids.map(passing).join("")}${failing}`,
        "below/cases.yaml": `${ids.slice(1).map(passing).join("")}${failing}${failing.replace("wrong", "wrong-too")}`
      })
      const scenarios = ["--scenarios", path.join(dir, "scenarios")]
      const at = yield* agentfx(["eval", path.join(dir, "at"), ...scenarios])
      expect(at.code).toBe(0)
      expect(at.stdout).toContain("99/100 passed (99 %), 1 failed, 0 errored — threshold 99 %: PASS")
      const below = yield* agentfx(["eval", path.join(dir, "below"), ...scenarios])
      expect(below.code).toBe(1)
      expect(below.stdout).toContain("98/100 passed (98 %), 2 failed, 0 errored — threshold 99 %: FAIL")
    })
  )

  it.scopedLive("an MCP result of more than 10 MiB fails its call, naming the server, the tool and the size", () =>
    Effect.gen(function* () {
      const big = [
        'const rl = require("node:readline").createInterface({ input: process.stdin });',
        'const reply = (id, result) => process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id, result }) + String.fromCharCode(10));',
        'rl.on("line", (line) => { const m = JSON.parse(line);',
        'if (m.method === "initialize") reply(m.id, { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "big", version: "1" } });',
        'else if (m.method === "tools/list") reply(m.id, { tools: [{ name: "hoard", inputSchema: { type: "object" }, annotations: { readOnlyHint: true, openWorldHint: false } }] });',
        'else if (m.method === "tools/call") reply(m.id, { content: [{ type: "text", text: "x".repeat(10 * 1024 * 1024) }] }); });'
      ].join(" ")
      const result = yield* agentfx(["run", "--json", "--mcp", `${JSON.stringify(process.execPath)} -e ${JSON.stringify(big)}`, "use hoard"])
      expect(result.code).toBe(0)
      const [call] = (JSON.parse(result.stdout) as RunJson).calls
      expect((call?.response.error as { details?: unknown } | undefined)?.details).toEqual({
        type: "McpResultTooLarge",
        message: 'the result of "hoard" from the MCP server node is 10.0 MiB, more than the 10 MiB one message may hold: it was not read, and the server goes on serving'
      })
    })
  )

  it.scoped("live gives up connecting after 15s, naming connectTimeout", () =>
    Effect.gen(function* () {
      const server = yield* emulator()
      yield* server.inject(Fault.slowSetup(Duration.infinity), { protocol: "gemini-live", times: 100 })
      const { env, flags } = viaGemini(server)
      const result = yield* untilEnd(yield* Effect.fork(agentfx(["live", ...flags], { env })))
      expect(result.code).toBe(1)
      expect(result.stderr).toContain(`connecting to gemini-live-2.5-flash-preview at 127.0.0.1:${server.port}…`)
      expect(result.stderr).toContain("ModelTimeout: the live connection was not set up within 15s (connectTimeout)")
      expect((yield* server.live)[0]?.model).toBe("gemini-live-2.5-flash-preview")
    })
  )

  it.scopedLive("agentfx emulator listens on a free port of 127.0.0.1 and takes the key agentfx-emulator-key", () =>
    Effect.gen(function* () {
      const terminal = yield* Io.memory()
      const fiber = yield* Effect.fork(agentfx(["emulator", "--json"], { terminal }))
      const banner = JSON.parse(yield* terminal.waitForOutput((out) => out.includes("\n"))) as { url: string; apiKey: string }
      yield* terminal.interrupt
      expect((yield* Fiber.join(fiber)).code).toBe(130)
      expect(banner.url).toMatch(/^http:\/\/127\.0\.0\.1:(\d+)$/)
      expect(Number(/:(\d+)$/.exec(banner.url)![1])).toBeGreaterThan(0)
      expect(banner.apiKey).toBe("agentfx-emulator-key")
    })
  )
})

describe("the defaults table", () => {
  it("README's table is the module's, and each entry names a test that exists in the file it names", () => {
    const readme = fs.readFileSync(path.join(packages, "..", "README.md"), "utf8")
    expect(readme).toContain(Defaults.markdown())
    const missing = Defaults.all.filter((entry) => !fs.readFileSync(path.join(packages, entry.test.file), "utf8").includes(JSON.stringify(entry.test.name)))
    expect(missing.map((entry) => `${entry.name}: ${entry.test.file} has no test "${entry.test.name}"`)).toEqual([])
  })
})
