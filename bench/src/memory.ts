/**
 * Memory benchmark: does a long offline chat, or a long-running emulator, keep what it no longer needs?
 *
 * - **Chat**: 1,000 messages through `Chat` and the Gemini provider on an in-process emulator with the offline
 *   rule model — what `agentfx chat` runs offline (the same emulator options: no record of requests). Two in three
 *   messages make a tool call. RSS and heap used after a full GC are sampled at 100, 250, 500 and 1,000 messages,
 *   next to the size of the history itself (the session's JSON): the chat must keep its history, and should keep
 *   little else, so the heap should grow with the history and not faster.
 * - **Emulator**: the emulator's server in a child process, sent 10,000 `generateContent` requests of 2 KB each
 *   (8 at a time); its RSS and heap after a full GC at 0, 1,000, 5,000 and 10,000 requests. Twice: as
 *   `agentfx emulator` runs it (no record of requests), and with the library's default record (the last 100
 *   requests with their bodies, for tests to inspect) — flat past the first hundred either way.
 *
 * Each repetition runs in a fresh process (a process's RSS rarely shrinks back, so a second run in the same one
 * would start high); figures are the median (min–max) over the repetitions.
 *
 *   npx -y pnpm@10 bench:memory
 */
import { Chat, Registry } from "@agentfx/core"
import { Emulator, Policy } from "@agentfx/emulator"
import { Gemini } from "@agentfx/providers"
import { Calculator, Cassette, Clock } from "@agentfx/tools"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import { execFileSync } from "node:child_process"
import { fileURLToPath } from "node:url"
import { memoryNow, serve, spawnChild } from "./internal/childEmulator.js"
import type { Memory } from "./internal/childEmulator.js"
import { machine, megabytes, spread } from "./internal/stats.js"
import * as Table from "./internal/table.js"

const repetitions = 3
const messageCheckpoints = [100, 250, 500, 1_000] as const
const requestCheckpoints = [0, 1_000, 5_000, 10_000] as const
const concurrency = 8
const prompt = "Tell me about the weather. ".repeat(76) // ≈ 2 KB
// Plain questions, and ones the offline model answers with a tool call (calculator, clock).
const messages = ["hello there", "what is 17 * 23", "what time is it in Europe/Oslo"]

interface ChatSample extends Memory {
  readonly messages: number
  /** Characters of the session's JSON: the history the chat must keep. */
  readonly history: number
}

/** One repetition of the chat (run in a child process): a JSON line per checkpoint on stdout. */
const chatOnce = Effect.gen(function* () {
  const emulator = yield* Emulator.make({ policy: Policy.offline, record: false })
  const model = Gemini.layer({ apiKey: Redacted.make(emulator.apiKey), baseUrl: emulator.geminiBaseUrl, model: Cassette.offlineModel })
  const chat = yield* Chat.make({ registry: Registry.unsafeMake(Clock.tool, Calculator.tool) })
  for (let sent = 1; sent <= messageCheckpoints[messageCheckpoints.length - 1]!; sent++) {
    yield* Effect.provide(chat.send(messages[sent % messages.length]!), model)
    if ((messageCheckpoints as ReadonlyArray<number>).includes(sent)) {
      const history = (yield* chat.export).length
      console.log(JSON.stringify({ messages: sent, history, ...memoryNow() } satisfies ChatSample))
    }
  }
}).pipe(Effect.scoped)

/** Runs this script with `--chat` in a fresh process and reads its checkpoints. */
const chatRepetition = (): ReadonlyArray<ChatSample> =>
  execFileSync(process.execPath, ["--expose-gc", fileURLToPath(import.meta.url), "--chat"], { encoding: "utf8", maxBuffer: 1 << 20 })
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as ChatSample)

/** `count` generateContent requests to the emulator at `url`, `concurrency` at a time. */
const send = async (url: string, apiKey: string, count: number): Promise<void> => {
  const body = JSON.stringify({ contents: [{ role: "user", parts: [{ text: prompt }] }] })
  let next = 0
  const worker = async () => {
    while (next < count) {
      next++
      const response = await fetch(`${url}/v1beta/models/${Cassette.offlineModel}:generateContent`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-goog-api-key": apiKey },
        body
      })
      if (!response.ok) throw new Error(`the emulator answered ${response.status}: ${await response.text()}`)
      await response.arrayBuffer()
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
}

/** The emulator's record of requests in a run: as `agentfx emulator` has it, or the library's default. */
const records = { none: "none (agentfx emulator)", "last-100": "last 100 with bodies (library default)" } as const
type Record = keyof typeof records

/** One repetition of the emulator figure: a fresh child, driven through the checkpoints. */
const emulatorRepetition = (record: Record) =>
  Effect.gen(function* () {
    const child = yield* spawnChild(import.meta.url, record)
    const samples: Array<Memory & { readonly requests: number }> = []
    let sent = 0
    for (const checkpoint of requestCheckpoints) {
      yield* Effect.promise(() => send(child.url, child.apiKey, checkpoint - sent))
      sent = checkpoint
      samples.push({ requests: checkpoint, ...(yield* Effect.promise(child.memory)) })
    }
    return samples
  }).pipe(Effect.scoped)

const column = <S>(runs: ReadonlyArray<ReadonlyArray<S>>, row: number, pick: (sample: S) => number): ReadonlyArray<number> =>
  runs.map((run) => pick(run[row]!) / 1e6)

const main = Effect.gen(function* () {
  const chats: Array<ReadonlyArray<ChatSample>> = []
  for (let i = 0; i < repetitions; i++) {
    console.error(`chat: repetition ${i + 1}/${repetitions}`)
    chats.push(chatRepetition())
  }
  Table.print({
    title: `A 1,000-message offline chat (Chat + Gemini provider + in-process emulator, as agentfx chat offline): MB, median (min–max) of ${repetitions} processes`,
    columns: [
      { header: "messages", align: "right" },
      { header: "history (session JSON)", align: "right" },
      { header: "heap used after GC", align: "right" },
      { header: "heap − history", align: "right" },
      { header: "RSS", align: "right" }
    ],
    rows: messageCheckpoints.map((messages, row) => [
      messages.toLocaleString("en"),
      spread(column(chats, row, (s) => s.history)),
      spread(column(chats, row, (s) => s.heapUsed)),
      spread(column(chats, row, (s) => s.heapUsed - s.history)),
      spread(column(chats, row, (s) => s.rss))
    ]),
    notes: [
      "Two messages in three make a tool call (calculator, clock), so 1,000 messages are about 1,670 model requests, each sending the whole history.",
      "History: characters of the session's JSON (what `--session` saves). The chat must keep it; what it keeps beyond it is the 'heap − history' column.",
      machine()
    ]
  })

  const rows: Array<ReadonlyArray<string>> = []
  for (const record of Object.keys(records) as ReadonlyArray<Record>) {
    const runs: Array<ReadonlyArray<Memory & { readonly requests: number }>> = []
    for (let i = 0; i < repetitions; i++) {
      console.error(`emulator, record ${record}: repetition ${i + 1}/${repetitions}`)
      runs.push(yield* emulatorRepetition(record))
    }
    for (const [row, requests] of requestCheckpoints.entries()) {
      rows.push([records[record], requests.toLocaleString("en"), spread(column(runs, row, (s) => s.heapUsed)), spread(column(runs, row, (s) => s.rss))])
    }
  }
  Table.print({
    title: `The emulator in its own process after N generateContent requests of 2 KB: MB, median (min–max) of ${repetitions} processes`,
    columns: [
      { header: "record of requests" },
      { header: "requests", align: "right" },
      { header: "heap used after GC", align: "right" },
      { header: "RSS", align: "right" }
    ],
    rows,
    notes: [`${concurrency} requests at a time from this process; 100 request bodies are ${megabytes(100 * prompt.length)}.`, machine()]
  })
})

const mode = process.argv[2]
if (mode === "--emulator") Effect.runFork(serve({ policy: Policy.offline, ...(process.argv[3] === "none" ? { record: false } : {}) }))
else if (mode === "--chat") Effect.runPromise(chatOnce).catch((error: unknown) => {
  console.error(error)
  process.exit(1)
})
else Effect.runPromise(main).catch((error: unknown) => {
  console.error(error)
  process.exitCode = 1
})
