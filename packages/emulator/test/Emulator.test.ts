import { Turn } from "@agentfx/core"
import { request as httpRequest } from "node:http"
import { describe, expect, it } from "@effect/vitest"
import { ApiError, GoogleGenAI } from "@google/genai"
import { Effect, Exit, Scope } from "effect"
import OpenAIClient, { APIError, BadRequestError } from "openai"
import { Emulator, Fault, Policy } from "../src/index.js"

/** A key no test may ever see printed or recorded. */
const sentinel = "sk-SENTINEL-9f8e7d6c5b4a39281706"

const gemini = (emulator: Emulator.Service, apiKey = emulator.apiKey) => new GoogleGenAI({ apiKey, httpOptions: { baseUrl: emulator.geminiBaseUrl } })

const openai = (emulator: Emulator.Service, baseURL: string, apiKey = emulator.apiKey) => new OpenAIClient({ apiKey, baseURL, maxRetries: 0 })

const geminiError = (promise: () => Promise<unknown>) =>
  Effect.flip(Effect.tryPromise({ try: promise, catch: (error) => error })).pipe(
    Effect.map((error) => {
      if (!(error instanceof ApiError)) throw new Error(`expected an ApiError, got ${String(error)}`)
      return { status: error.status, body: JSON.parse(error.message) as { error: { message: string; status: string } } }
    })
  )

const openAIError = (promise: () => Promise<unknown>) =>
  Effect.flip(Effect.tryPromise({ try: promise, catch: (error) => error })).pipe(
    Effect.map((error) => {
      if (!(error instanceof APIError)) throw new Error(`expected an APIError, got ${String(error)}`)
      return error
    })
  )

const call = (id: string | undefined, name = "get_weather", args: object = { city: "Paris" }) => ({ functionCall: { ...(id === undefined ? {} : { id }), name, args } })
const answer = (id: string | undefined, response: unknown = { celsius: 20 }, name = "get_weather") => ({
  functionResponse: { ...(id === undefined ? {} : { id }), name, response }
})

describe("Emulator — Gemini REST strictness (through @google/genai)", () => {
  const rejections: ReadonlyArray<readonly [string, ReadonlyArray<unknown>, string]> = [
    [
      "a role other than user or model",
      [{ role: "user", parts: [{ text: "hi" }] }, { role: "model", parts: [call("a")] }, { role: "function", parts: [answer("a")] }],
      "Please use a valid role: user, model."
    ],
    [
      "a response turn without its call turn",
      [{ role: "user", parts: [{ text: "hi" }] }, { role: "user", parts: [answer("a")] }],
      "Please ensure that function response turn comes immediately after a function call turn."
    ],
    [
      "fewer responses than calls",
      [{ role: "user", parts: [{ text: "hi" }] }, { role: "model", parts: [call("a"), call("b")] }, { role: "user", parts: [answer("a")] }],
      "Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn."
    ],
    [
      "more responses than calls",
      [{ role: "user", parts: [{ text: "hi" }] }, { role: "model", parts: [call("a")] }, { role: "user", parts: [answer("a"), answer("b")] }],
      "Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn."
    ],
    [
      "responses split across two turns",
      [
        { role: "user", parts: [{ text: "hi" }] },
        { role: "model", parts: [call("a"), call("b")] },
        { role: "user", parts: [answer("a")] },
        { role: "user", parts: [answer("b")] }
      ],
      "Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn."
    ],
    [
      "a call turn that starts the conversation",
      [{ role: "model", parts: [call("a")] }, { role: "user", parts: [answer("a")] }],
      "Please ensure that function call turn comes immediately after a user turn or after a function response turn."
    ],
    [
      "a string response",
      [{ role: "user", parts: [{ text: "hi" }] }, { role: "model", parts: [call("a")] }, { role: "user", parts: [answer("a", "20 degrees")] }],
      "Invalid value at 'contents[2].parts[0].function_response.response' (type.googleapis.com/google.protobuf.Struct), \"20 degrees\""
    ],
    [
      "an array response",
      [{ role: "user", parts: [{ text: "hi" }] }, { role: "model", parts: [call("a")] }, { role: "user", parts: [answer("a", [1, 2])] }],
      "Invalid JSON payload received. Unknown name \"response\" at 'contents[2].parts[0].function_response': Proto field is not repeating, cannot start list."
    ]
  ]
  it.scoped("rejects JSON Schema keywords in the OpenAPI `parameters` with Gemini's 400 INVALID_ARGUMENT, through the SDK", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({ signatures: false })
      // The SDK itself drops a top-level `additionalProperties` from `parameters`, but not a nested `const`.
      const parameters = { type: "object", additionalProperties: false, properties: { unit: { type: "string", const: "C" } } }
      const error = yield* geminiError(() =>
        gemini(emulator).models.generateContent({
          model: "gemini-2.5-flash",
          contents: "hi",
          config: { tools: [{ functionDeclarations: [{ name: "f", description: "d", parameters: parameters as never }] }] }
        })
      )
      expect(error).toEqual({
        status: 400,
        body: {
          error: {
            code: 400,
            message: `Invalid JSON payload received. Unknown name "const" at 'tools[0].function_declarations[0].parameters.properties[0].value': Cannot find field.`,
            status: "INVALID_ARGUMENT"
          }
        }
      })
    }))

  it.scoped("records, without a 400, function responses whose ids do not match the calls of the turn before them", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({ policy: Policy.fromFunction(() => ({ text: "ok" })), signatures: false })
      const send = (contents: ReadonlyArray<unknown>) => Effect.promise(() => gemini(emulator).models.generateContent({ model: "gemini-2.5-flash", contents: contents as never }))
      const user = { role: "user", parts: [{ text: "hi" }] }
      yield* send([user, { role: "model", parts: [call("a"), call("b")] }, { role: "user", parts: [answer("zzz"), answer("zzz")] }])
      yield* send([user, { role: "model", parts: [call("a"), call("b")] }, { role: "user", parts: [answer("a"), answer("a")] }])
      yield* send([user, { role: "model", parts: [call("a")] }, { role: "user", parts: [answer(undefined)] }])
      yield* send([user, { role: "model", parts: [call("a"), call("b")] }, { role: "user", parts: [answer("b"), answer("a")] }])
      yield* send([user, { role: "model", parts: [call(undefined)] }, { role: "user", parts: [answer(undefined)] }])
      const records = yield* emulator.requests
      expect(records.map((record) => record.status)).toEqual([200, 200, 200, 200, 200])
      expect(records.map((record) => record.violations)).toEqual([
        ['contents[2]: the function response id "zzz" matches no call of the turn before it', 'contents[2]: the function response id "zzz" matches no call of the turn before it'],
        ['contents[2]: the call "a" was answered twice'],
        ['contents[2]: the response to "get_weather" at position 0 does not carry the id "a" of its call'],
        [],
        []
      ])
    }))

  for (const [name, contents, message] of rejections) {
    it.scoped(`rejects ${name} with 400 and Gemini's message`, () =>
      Effect.gen(function* () {
        const emulator = yield* Emulator.make({ signatures: false })
        const { status, body } = yield* geminiError(() => gemini(emulator).models.generateContent({ model: "gemini-2.5-flash", contents: contents as never }))
        expect(status).toBe(400)
        expect(body.error).toMatchObject({ status: "INVALID_ARGUMENT", message })
        const [record] = yield* emulator.requests
        expect(record).toMatchObject({ status: 400, error: message, apiKey: "valid", protocol: "gemini" })
      }))
  }

  it.scoped("emulators with one signing key accept each other's signatures; another emulator's are corrupted", () =>
    Effect.gen(function* () {
      const script = () => Policy.script([{ calls: [{ name: "get_weather", args: { city: "Paris" } }] }, { text: "ok" }])
      const signed = yield* Emulator.make({ policy: script(), signingKey: "shared" })
      const first = yield* Effect.promise(() => gemini(signed).models.generateContent({ model: "gemini-3-pro-preview", contents: "weather?" }))
      const contents = [{ role: "user", parts: [{ text: "weather?" }] }, first.candidates![0]!.content!, { role: "user", parts: [answer("call_0_0")] }]
      const same = yield* Emulator.make({ policy: Policy.script([{ text: "ok" }]), signingKey: "shared" })
      expect((yield* Effect.promise(() => gemini(same).models.generateContent({ model: "m", contents: contents as never }))).text).toBe("ok")
      const other = yield* Emulator.make({ policy: Policy.script([{ text: "ok" }]) })
      const rejected = yield* geminiError(() => gemini(other).models.generateContent({ model: "m", contents: contents as never }))
      expect(rejected.body.error.message).toBe("Corrupted thought signature.")
    }))

  it.scoped("issues a signature on the first of parallel calls and requires it back on that call", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({
        policy: Policy.script([{ calls: [{ name: "get_weather", args: { city: "Paris" } }, { name: "get_weather", args: { city: "Oslo" } }] }, { text: "ok" }, { text: "ok" }, { text: "ok" }, { text: "ok" }])
      })
      const client = gemini(emulator)
      const first = yield* Effect.promise(() => client.models.generateContent({ model: "gemini-3-pro-preview", contents: "weather?" }))
      const parts = first.candidates![0]!.content!.parts!
      expect(typeof parts[0]!.thoughtSignature).toBe("string")
      expect(parts[1]!.thoughtSignature).toBeUndefined()
      const history = (model: object) => [
        { role: "user", parts: [{ text: "weather?" }] },
        model,
        { role: "user", parts: [answer("call_0_0"), answer("call_0_1")] }
      ]
      // The signature moved to the other call: corrupted. Dropped: missing. Echoed as received: accepted.
      const signature = parts[0]!.thoughtSignature
      const moved = { role: "model", parts: [{ ...parts[1], thoughtSignature: signature }, { ...parts[0], thoughtSignature: undefined }] }
      const dropped = { role: "model", parts: [{ ...parts[0], thoughtSignature: undefined }, parts[1]] }
      const edited = { role: "model", parts: [{ ...parts[0], functionCall: { ...parts[0]!.functionCall, args: { city: "Lyon" } } }, parts[1]] }
      for (const content of [moved, edited]) {
        const rejected = yield* geminiError(() => client.models.generateContent({ model: "m", contents: history(content) }))
        expect(rejected.body.error.message).toBe("Corrupted thought signature.")
      }
      const missing = yield* geminiError(() => client.models.generateContent({ model: "m", contents: history(dropped) }))
      expect(missing.body.error.message).toContain("Function call is missing a thought_signature")
      const accepted = yield* Effect.promise(() => client.models.generateContent({ model: "m", contents: history(first.candidates![0]!.content!) }))
      expect(accepted.text).toBe("ok")
      // History the model did not produce may carry the FAQ's dummy signatures instead; another string may not.
      for (const dummy of ["skip_thought_signature_validator", "context_engineering_is_the_way_to_go"]) {
        const handBuilt = { role: "model", parts: [{ ...parts[0], thoughtSignature: dummy }, parts[1]] }
        expect((yield* Effect.promise(() => client.models.generateContent({ model: "m", contents: history(handBuilt) }))).text).toBe("ok")
      }
      const made = yield* geminiError(() => client.models.generateContent({ model: "m", contents: history({ role: "model", parts: [{ ...parts[0], thoughtSignature: "skip_thought_signature_validator_" }, parts[1]] }) }))
      expect(made.body.error.message).toBe(`Invalid value at 'contents[1].parts[0].thought_signature' (TYPE_BYTES), Base64 decoding failed for "skip_thought_signature_validator_"`)
      // Signatures of earlier turns (before the last user message) are not checked, as on Gemini 3.
      const later = [...history({ role: "model", parts: [call("call_0_0"), call("call_0_1")] }), { role: "model", parts: [{ text: "ok" }] }, { role: "user", parts: [{ text: "thanks" }] }]
      expect((yield* Effect.promise(() => client.models.generateContent({ model: "m", contents: later }))).text).toBe("ok")
    }))

  it.scoped("checks the key: missing is 403 PERMISSION_DENIED, wrong is 400 API_KEY_INVALID; the key is never recorded", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make()
      const wrong = yield* geminiError(() => gemini(emulator, sentinel).models.generateContent({ model: "m", contents: "hi" }))
      expect(wrong.status).toBe(400)
      expect(wrong.body.error).toMatchObject({ status: "INVALID_ARGUMENT", message: "API key not valid. Please pass a valid API key." })
      const response = yield* Effect.promise(() =>
        fetch(`${emulator.geminiBaseUrl}/v1beta/models/m:generateContent`, { method: "POST", body: JSON.stringify({ contents: [{ parts: [{ text: "hi" }] }] }) })
      )
      expect(response.status).toBe(403)
      expect(((yield* Effect.promise(() => response.json())) as { error: { status: string } }).error.status).toBe("PERMISSION_DENIED")
      const records = yield* emulator.requests
      expect(records.map((record) => record.apiKey)).toEqual(["invalid", "missing"])
      expect(JSON.stringify(records)).not.toContain(sentinel)
    }))

  it.scoped("streams SSE exactly as Gemini frames it: data lines, blank-line separated, no event lines, no continuationToken", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({ policy: Policy.script([{ text: "Hello there, world.", calls: [{ name: "get_weather", args: { city: "Paris" } }] }]) })
      const response = yield* Effect.promise(() =>
        fetch(`${emulator.geminiBaseUrl}/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse`, {
          method: "POST",
          headers: { "x-goog-api-key": emulator.apiKey, "content-type": "application/json" },
          body: JSON.stringify({ contents: [{ role: "user", parts: [{ text: "hi" }] }] })
        })
      )
      expect(response.headers.get("content-type")).toBe("text/event-stream")
      const text = yield* Effect.promise(() => response.text())
      expect(text).toMatch(/^(data: \{[^\r\n]*\}\r\n\r\n)+$/)
      expect(text).not.toContain("event:")
      expect(text).not.toContain("continuationToken")
      const frames = text.split("\r\n\r\n").filter((frame) => frame !== "").map((frame) => JSON.parse(frame.slice("data: ".length)))
      expect(frames.length).toBe(4)
      expect(frames[frames.length - 1].candidates[0].finishReason).toBe("STOP")
      expect(frames[frames.length - 1].candidates[0].content.parts[0].functionCall).toEqual({ id: "call_0_0", name: "get_weather", args: { city: "Paris" } })
    }))
})

describe("Emulator — routes", () => {
  it.scoped("one emulator serves every SDK on its own route: Gemini, GLM (general and coding), OpenAI, any base path", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({ policy: Policy.fromFunction((request) => ({ text: request.flavour })), signatures: false })
      const chat = (baseURL: string) =>
        Effect.promise(() => openai(emulator, baseURL).chat.completions.create({ model: "m", messages: [{ role: "user", content: "hi" }] })).pipe(
          Effect.map((completion) => completion.choices[0]!.message.content)
        )
      const answers = [
        (yield* Effect.promise(() => gemini(emulator).models.generateContent({ model: "gemini-2.5-flash", contents: "hi" }))).text,
        yield* chat(emulator.glmBaseUrl()),
        yield* chat(emulator.glmBaseUrl("coding")),
        yield* chat(emulator.openAIBaseUrl()),
        yield* chat(emulator.openAIBaseUrl("/local/v1"))
      ]
      expect(answers).toEqual(["gemini", "glm", "glm", "openai", "openai"])
      expect((yield* emulator.requests).map((record) => record.path)).toEqual([
        "/v1beta/models/gemini-2.5-flash:generateContent",
        "/api/paas/v4/chat/completions",
        "/api/coding/paas/v4/chat/completions",
        "/v1/chat/completions",
        "/local/v1/chat/completions"
      ])
    }))

  it.scoped("a model name with broken percent-encoding is a model Gemini does not have: 404 NOT_FOUND, not a defect", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({ signatures: false })
      const response = yield* Effect.promise(() =>
        fetch(`${emulator.geminiBaseUrl}/v1beta/models/%E0%A4%A:generateContent`, {
          method: "POST",
          headers: { "x-goog-api-key": emulator.apiKey },
          body: JSON.stringify({ contents: [{ role: "user", parts: [{ text: "hi" }] }] })
        })
      )
      expect(response.status).toBe(404)
      expect(yield* Effect.promise(() => response.json())).toEqual({
        error: {
          code: 404,
          message: "models/%E0%A4%A is not found for API version v1beta, or is not supported for generateContent. Call ListModels to see the list of available models and their supported methods.",
          status: "NOT_FOUND"
        }
      })
      expect(yield* emulator.awaitOutcome(0)).toBe("completed")
      const [record] = yield* emulator.requests
      expect(record).toMatchObject({ model: "%E0%A4%A", status: 404 })
    }))

  it.scoped("without alt=sse a Gemini stream is one JSON array of the chunks", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({ policy: Policy.script([{ text: "a b" }]), signatures: false })
      const response = yield* Effect.promise(() =>
        fetch(`${emulator.geminiBaseUrl}/v1beta/models/m:streamGenerateContent`, {
          method: "POST",
          headers: { "x-goog-api-key": emulator.apiKey },
          body: JSON.stringify({ contents: [{ role: "user", parts: [{ text: "hi" }] }] })
        })
      )
      const chunks = (yield* Effect.promise(() => response.json())) as Array<{ candidates: Array<{ content: { parts: Array<{ text: string }> } }> }>
      expect(chunks.map((chunk) => chunk.candidates[0]!.content.parts.map((part) => part.text).join(""))).toEqual(["a ", "b", ""])
    }))
})

describe("Emulator — chat completions strictness (through the openai SDK)", () => {
  const history = (tail: ReadonlyArray<object>) => [
    { role: "user", content: "weather?" },
    {
      role: "assistant",
      content: null,
      tool_calls: [
        { id: "c1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } },
        { id: "c2", type: "function", function: { name: "get_weather", arguments: '{"city":"Oslo"}' } }
      ]
    },
    ...tail
  ]
  const rejections: ReadonlyArray<readonly [string, ReadonlyArray<object>, string]> = [
    [
      "a tool_call left unanswered",
      history([{ role: "tool", tool_call_id: "c1", content: "{}" }, { role: "user", content: "and?" }]),
      "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: c2"
    ],
    [
      "a tool message answering an id that was not asked",
      history([{ role: "tool", tool_call_id: "c1", content: "{}" }, { role: "tool", tool_call_id: "c9", content: "{}" }]),
      "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'."
    ],
    [
      "a user message between the assistant and its tool messages",
      history([{ role: "user", content: "wait" }, { role: "tool", tool_call_id: "c1", content: "{}" }, { role: "tool", tool_call_id: "c2", content: "{}" }]),
      "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: c1, c2"
    ],
    [
      "a tool_call answered twice",
      history([{ role: "tool", tool_call_id: "c1", content: "{}" }, { role: "tool", tool_call_id: "c1", content: "{}" }, { role: "tool", tool_call_id: "c2", content: "{}" }]),
      "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'."
    ],
    [
      "a tool message with no assistant before it",
      [{ role: "user", content: "hi" }, { role: "tool", tool_call_id: "c1", content: "{}" }],
      "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'."
    ]
  ]
  for (const [name, messages, message] of rejections) {
    it.scoped(`rejects ${name}: OpenAI's 400, GLM's 1214`, () =>
      Effect.gen(function* () {
        const emulator = yield* Emulator.make()
        const asOpenAI = yield* openAIError(() => openai(emulator, emulator.openAIBaseUrl()).chat.completions.create({ model: "m", messages: messages as never }))
        expect(asOpenAI).toBeInstanceOf(BadRequestError)
        expect(asOpenAI.error).toMatchObject({ message, type: "invalid_request_error" })
        const asGlm = yield* openAIError(() => openai(emulator, emulator.glmBaseUrl()).chat.completions.create({ model: "m", messages: messages as never }))
        expect(asGlm).toBeInstanceOf(BadRequestError)
        expect(asGlm.code).toBe("1214")
      }))
  }

  it.scoped("GLM rejects an assistant message with neither content nor tool_calls, and a tool_choice other than auto", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make()
      const client = openai(emulator, emulator.glmBaseUrl())
      const empty = yield* openAIError(() =>
        client.chat.completions.create({ model: "glm-4.7", messages: [{ role: "user", content: "a" }, { role: "assistant", content: "" }, { role: "user", content: "b" }] })
      )
      expect(empty.error).toEqual({ code: "1214", message: "messages[1]: content and tool_calls cannot both be empty" })
      const choice = yield* openAIError(() =>
        client.chat.completions.create({
          model: "glm-4.7",
          messages: [{ role: "user", content: "a" }],
          tools: [{ type: "function", function: { name: "f", parameters: { type: "object", properties: {} } } }],
          tool_choice: "required"
        })
      )
      expect(choice.code).toBe("1214")
    }))

  it.scoped("checks the bearer key with the real statuses and never shows the whole key", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make()
      const glm = yield* openAIError(() => openai(emulator, emulator.glmBaseUrl(), sentinel).chat.completions.create({ model: "m", messages: [{ role: "user", content: "hi" }] }))
      expect([glm.status, glm.code]).toEqual([401, "1002"])
      const oa = yield* openAIError(() => openai(emulator, emulator.openAIBaseUrl(), sentinel).chat.completions.create({ model: "m", messages: [{ role: "user", content: "hi" }] }))
      expect([oa.status, oa.code]).toEqual([401, "invalid_api_key"])
      expect(oa.message).toContain("sk-***1706")
      expect(oa.message).not.toContain(sentinel)
    }))

  it.scoped("a stream ends with data: [DONE] and the response closes", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({ policy: Policy.script([{ text: "hi there", calls: [{ name: "get_weather", args: { city: "Paris" } }] }]) })
      const response = yield* Effect.promise(() =>
        fetch(`${emulator.glmBaseUrl()}/chat/completions`, {
          method: "POST",
          headers: { authorization: `Bearer ${emulator.apiKey}`, "content-type": "application/json" },
          body: JSON.stringify({ model: "glm-4.7", stream: true, messages: [{ role: "user", content: "hi" }] })
        })
      )
      // text() resolves only because the server ends the response after [DONE].
      const text = yield* Effect.promise(() => response.text())
      expect(text.endsWith("data: [DONE]\n\n")).toBe(true)
      expect(text.split("\n\n").filter((frame) => frame !== "").every((frame) => frame.startsWith("data: "))).toBe(true)
      expect(yield* emulator.awaitOutcome(0)).toBe("completed")
    }))
})

describe("Emulator — GLM streams tool calls whole unless tool_stream is set", () => {
  interface Delta {
    readonly tool_calls?: ReadonlyArray<{ readonly index?: number; readonly id?: string; readonly function: { readonly name?: string; readonly arguments?: string } }>
  }
  const chunksOf = (emulator: Emulator.Service, path: string, extra: object) =>
    Effect.promise(async () => {
      const response = await fetch(`${emulator.url}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${emulator.apiKey}` },
        body: JSON.stringify({ model: "glm-4.7", stream: true, messages: [{ role: "user", content: "weather?" }], ...extra })
      })
      const text = await response.text()
      return text
        .split("\n\n")
        .filter((event) => event.startsWith("data: {"))
        .map((event) => JSON.parse(event.slice(6)) as { choices: ReadonlyArray<{ delta: Delta; finish_reason?: string }> })
    })
  const withCalls = () =>
    Emulator.make({ policy: Policy.fromFunction(() => ({ calls: [{ name: "get_weather", args: { city: "Paris" } }, { name: "get_time", args: { tz: "Europe/Paris" } }] })) })
  const callChunks = (chunks: ReadonlyArray<{ choices: ReadonlyArray<{ delta: Delta; finish_reason?: string }> }>) =>
    chunks.filter((chunk) => chunk.choices[0]?.delta.tool_calls !== undefined)

  it.scoped("without tool_stream: every call complete (id, name, all its arguments) in the chunk with finish_reason tool_calls", () =>
    Effect.gen(function* () {
      const emulator = yield* withCalls()
      const chunks = yield* chunksOf(emulator, "/api/paas/v4/chat/completions", {})
      const carrying = callChunks(chunks)
      expect(carrying).toHaveLength(1)
      expect(carrying[0]!.choices[0]!.finish_reason).toBe("tool_calls")
      expect(carrying[0]!.choices[0]!.delta.tool_calls).toEqual([
        { index: 0, id: expect.any(String), type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } },
        { index: 1, id: expect.any(String), type: "function", function: { name: "get_time", arguments: '{"tz":"Europe/Paris"}' } }
      ])
    }))

  it.scoped("with tool_stream: true (and on OpenAI routes): the first delta of an index has id and name, later ones argument fragments", () =>
    Effect.gen(function* () {
      const emulator = yield* withCalls()
      for (const [path, extra] of [["/api/paas/v4/chat/completions", { tool_stream: true }], ["/v1/chat/completions", {}]] as const) {
        const carrying = callChunks(yield* chunksOf(emulator, path, extra))
        expect(carrying.length).toBeGreaterThan(2)
        const deltas = carrying.flatMap((chunk) => chunk.choices[0]!.delta.tool_calls!)
        expect(deltas.every((delta) => (delta.id === undefined) === (delta.function.name === undefined))).toBe(true)
        const joined = [0, 1].map((index) => deltas.filter((delta) => delta.index === index).map((delta) => delta.function.arguments).join(""))
        expect(joined).toEqual(['{"city":"Paris"}', '{"tz":"Europe/Paris"}'])
        expect(deltas.filter((delta) => delta.index === 0).length).toBeGreaterThan(1)
      }
    }))
})

describe("Emulator — lifecycle, recording, policies", () => {
  it.effect("stops with its scope: connections are closed and the port is released", () =>
    Effect.gen(function* () {
      const scope = yield* Scope.make()
      const emulator = yield* Emulator.make().pipe(Scope.extend(scope))
      yield* emulator.inject(Fault.stall)
      const pending = fetch(`${emulator.geminiBaseUrl}/v1beta/models/m:generateContent`, {
        method: "POST",
        headers: { "x-goog-api-key": emulator.apiKey },
        body: JSON.stringify({ contents: [{ role: "user", parts: [{ text: "hi" }] }] })
      }).then(
        () => "answered",
        () => "failed"
      )
      yield* emulator.awaitRequests(1)
      yield* Scope.close(scope, Exit.void)
      expect(yield* Effect.promise(() => pending)).toBe("failed")
      expect(yield* emulator.awaitOutcome(0)).toBe("aborted")
      const after = yield* Effect.promise(() => fetch(emulator.url).then(() => "connected", () => "refused"))
      expect(after).toBe("refused")
    }))

  it.scoped("records every request decoded into the neutral model", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({ policy: Policy.script([{ text: "a" }, { text: "b" }]) })
      yield* Effect.promise(() =>
        gemini(emulator).models.generateContent({ model: "gemini-2.5-flash", contents: "hello", config: { systemInstruction: "sys", temperature: 0.5 } })
      )
      yield* Effect.promise(() =>
        openai(emulator, emulator.glmBaseUrl("coding")).chat.completions.create({ model: "glm-4.7", messages: [{ role: "system", content: "s" }, { role: "user", content: "hey" }] })
      )
      const [g, o] = yield* emulator.requests
      expect(g!.request).toMatchObject({ protocol: "gemini", model: "gemini-2.5-flash", system: "sys", stream: false, transcript: [Turn.user("hello")] })
      expect(o!.request).toMatchObject({ protocol: "openai", flavour: "glm", model: "glm-4.7", system: "s", transcript: [Turn.user("hey")] })
      expect(o!.path).toBe("/api/coding/paas/v4/chat/completions")
      expect([g!.outcome, o!.outcome]).toEqual(["completed", "completed"])
    }))

  it.scoped("an injected fault applies to the next request of its protocol only, and leaves the script alone", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({ policy: Policy.script([{ text: "first" }, { text: "second" }]) })
      yield* emulator.inject(Fault.overloaded(), { protocol: "openai", times: 2 })
      const g = yield* Effect.promise(() => gemini(emulator).models.generateContent({ model: "m", contents: "hi" }))
      expect(g.text).toBe("first")
      const client = openai(emulator, emulator.openAIBaseUrl())
      for (let i = 0; i < 2; i++) {
        const error = yield* openAIError(() => client.chat.completions.create({ model: "m", messages: [{ role: "user", content: "hi" }] }))
        expect(error.status).toBe(503)
      }
      const o = yield* Effect.promise(() => client.chat.completions.create({ model: "m", messages: [{ role: "user", content: "hi" }] }))
      expect(o.choices[0]!.message.content).toBe("second")
      yield* emulator.assertConsumed
    }))

  it.scoped("awaitOutcome waits for a request not yet received, and for one still pending, until it ends", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make()
      const ask = (signal?: AbortSignal) =>
        emulator.fetch(`${emulator.url}/v1beta/models/m:generateContent`, {
          method: "POST",
          headers: { "x-goog-api-key": emulator.apiKey },
          body: JSON.stringify({ contents: [{ role: "user", parts: [{ text: "hi" }] }] }),
          ...(signal === undefined ? {} : { signal })
        })
      const first = yield* Effect.fork(emulator.awaitOutcome(0))
      yield* Effect.yieldNow()
      yield* Effect.promise(() => ask().then((response) => response.text()))
      expect(yield* first).toBe("completed")
      yield* emulator.inject(Fault.stall)
      const controller = new AbortController()
      const stalled = ask(controller.signal).catch((error: Error) => error.name)
      yield* emulator.awaitRequests(2)
      const second = yield* Effect.fork(emulator.awaitOutcome(1))
      yield* Effect.yieldNow()
      controller.abort()
      expect(yield* Effect.promise(() => stalled)).toBe("AbortError")
      expect(yield* second).toBe("aborted")
    }))

  it.scoped("a request's faults are those applied to it: none, or the injected shaping faults and then the policy's fault", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({ policy: Policy.fromFunction(() => Fault.overloaded()) })
      const ask = () =>
        Effect.promise(() =>
          emulator
            .fetch(`${emulator.url}/v1beta/models/m:generateContent`, {
              method: "POST",
              headers: { "x-goog-api-key": emulator.apiKey },
              body: JSON.stringify({ contents: [{ role: "user", parts: [{ text: "hi" }] }] })
            })
            .then((response) => response.status)
        )
      expect(yield* ask()).toBe(503)
      yield* emulator.inject(Fault.splitChunks)
      expect(yield* ask()).toBe(503)
      expect((yield* emulator.requests).map((request) => request.faults)).toStrictEqual([[Fault.overloaded()], [Fault.splitChunks, Fault.overloaded()]])
      // A policy without a script has nothing left to consume; a script used up neither.
      yield* emulator.assertConsumed
      const scripted = yield* Emulator.make({ policy: Policy.script([{ text: "only" }]), signatures: false })
      yield* Effect.promise(() => gemini(scripted).models.generateContent({ model: "m", contents: "hi" }))
      yield* scripted.assertConsumed
    }))

  it.scoped("byModel replays each model's script by conversation position; other models get the fallback or a 400", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({
        policy: Policy.byModel(new Map([["case-a", [{ text: "a1" }, { text: "a2" }]], ["case-b", [{ text: "b1" }]]]))
      })
      const client = gemini(emulator)
      const ask = (model: string, contents: Parameters<typeof client.models.generateContent>[0]["contents"]) =>
        Effect.promise(() => client.models.generateContent({ model, contents }))
      expect((yield* ask("case-b", "hi")).text).toBe("b1")
      expect((yield* ask("case-a", "hi")).text).toBe("a1")
      expect((yield* ask("case-a", "hi again")).text).toBe("a1")
      const second = [{ role: "user", parts: [{ text: "hi" }] }, { role: "model", parts: [{ text: "a1" }] }, { role: "user", parts: [{ text: "more" }] }]
      expect((yield* ask("case-a", second)).text).toBe("a2")
      const beyond = yield* geminiError(() => client.models.generateContent({ model: "case-b", contents: second }))
      expect(beyond.body.error.message).toContain('the script of "case-b" has 1 steps, and the conversation asked for step 2')
      const unknown = yield* geminiError(() => client.models.generateContent({ model: "case-z", contents: "hi" }))
      expect(unknown.body.error.message).toContain('no script for the model "case-z"')
      const withFallback = yield* Emulator.make({ policy: Policy.byModel(new Map(), Policy.script([{ text: "fallback" }])) })
      expect((yield* Effect.promise(() => gemini(withFallback).models.generateContent({ model: "any", contents: "hi" }))).text).toBe("fallback")
    }))

  it.scoped("a script used up answers 400 saying so; assertConsumed fails while steps are left", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({ policy: Policy.script([{ text: "only" }, { text: "unused" }]) })
      expect((yield* Effect.flip(emulator.assertConsumed))._tag).toBe("ScriptIncomplete")
      yield* emulator.setPolicy(Policy.script([]))
      const error = yield* geminiError(() => gemini(emulator).models.generateContent({ model: "m", contents: "hi" }))
      expect(error.body.error.message).toBe("agentfx emulator: the script has no step 1 (it has 0)")
    }))

  it.scoped("an upload that never ends is answered 413 once it passes 20 MiB, in the route's error shape, and the connection is closed", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make()
      /** Writes 64 KiB chunks and never ends the body: only the server can end this exchange. */
      const endless = (path: string) =>
        Effect.promise(
          () =>
            new Promise<{ status: number; body: string; sent: number; closed: boolean }>((resolve) => {
              const chunk = Buffer.alloc(64 * 1024, "a")
              let sent = 0
              let answered = false
              const req = httpRequest(`${emulator.url}${path}`, {
                method: "POST",
                headers: { "content-type": "application/json", authorization: `Bearer ${emulator.apiKey}`, "x-goog-api-key": emulator.apiKey }
              })
              const pump = () => {
                while (!answered && !req.destroyed && req.write(chunk)) sent += chunk.length
              }
              req.on("drain", pump)
              req.on("error", () => {})
              let socketClosed = false
              let ended: (() => void) | undefined
              req.on("socket", (socket) =>
                socket.once("close", () => {
                  socketClosed = true
                  ended?.()
                })
              )
              req.on("response", (res) => {
                answered = true
                let body = ""
                res.on("data", (data: Buffer) => (body += data.toString("utf8")))
                res.on("end", () => {
                  ended = () => resolve({ status: res.statusCode ?? 0, body, sent, closed: socketClosed })
                  if (socketClosed) ended()
                })
              })
              req.flushHeaders()
              pump()
            })
        )
      const glm = yield* endless("/api/paas/v4/chat/completions")
      expect(glm.status).toBe(413)
      expect(JSON.parse(glm.body)).toEqual({ error: { code: "413", message: "Request payload size exceeds the limit: 20971520 bytes." } })
      expect(glm.closed).toBe(true)
      const openAI = yield* endless("/v1/chat/completions")
      expect(openAI.status).toBe(413)
      expect(JSON.parse(openAI.body)).toMatchObject({ error: { message: "Request payload size exceeds the limit: 20971520 bytes.", type: "invalid_request_error" } })
      const google = yield* endless("/v1beta/models/m:generateContent")
      expect(google.status).toBe(413)
      expect(JSON.parse(google.body)).toEqual({ error: { code: 413, message: "Request payload size exceeds the limit: 20971520 bytes.", status: "INVALID_ARGUMENT" } })
      const records = yield* emulator.requests
      expect(records.map((record) => [record.protocol, record.flavour, record.status])).toEqual([
        ["openai", "glm", 413],
        ["openai", "openai", 413],
        ["gemini", "gemini", 413]
      ])
    }))

  it.scoped("in process: a body past 20 MiB is 413 with connection: close, in the shape of its route (an unknown route's is Gemini's); one of exactly 20 MiB is read", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make()
      const limit = 20 * 1024 * 1024
      const post = (path: string, size: number) =>
        Effect.promise(async () => {
          const response = await emulator.fetch(`${emulator.url}${path}`, { method: "POST", headers: { "x-goog-api-key": emulator.apiKey }, body: "a".repeat(size) })
          return { status: response.status, connection: response.headers.get("connection"), body: await response.json() }
        })
      const refusal = { error: { code: 413, message: "Request payload size exceeds the limit: 20971520 bytes.", status: "INVALID_ARGUMENT" } }
      expect(yield* post("/nowhere", limit + 1)).toStrictEqual({ status: 413, connection: "close", body: refusal })
      expect(yield* post("/v1beta/models/m:generateContent", limit + 1)).toStrictEqual({ status: 413, connection: "close", body: refusal })
      expect((yield* post("/nowhere", limit)).status).toBe(404)
      const records = yield* emulator.requests
      expect(records.map((record) => [record.protocol, record.flavour, record.status, record.error])).toStrictEqual([
        ["unknown", "unknown", 413, "the request body is larger than the limit"],
        ["gemini", "gemini", 413, "the request body is larger than the limit"],
        ["unknown", "unknown", 404, "not found"]
      ])
    }))

  it.scoped("a route answers POST only; anything else, and any path it does not know (repeated slashes collapsed), is 404 saying so, recorded as such", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make()
      const send = (method: string, path: string) =>
        Effect.promise(async () => {
          const response = await emulator.fetch(`${emulator.url}${path}`, { method, headers: { "x-goog-api-key": emulator.apiKey, authorization: `Bearer ${emulator.apiKey}` } })
          return { status: response.status, body: await response.json() }
        })
      const notFound = (method: string, path: string) => ({
        status: 404,
        body: { error: { code: 404, message: `agentfx emulator: no route for ${method} ${path}`, status: "NOT_FOUND" } }
      })
      expect(yield* send("GET", "/v1beta/models/m:generateContent")).toStrictEqual(notFound("GET", "/v1beta/models/m:generateContent"))
      expect(yield* send("PUT", "/v1/chat/completions")).toStrictEqual(notFound("PUT", "/v1/chat/completions"))
      expect(yield* send("POST", "//v1beta///nothing")).toStrictEqual(notFound("POST", "/v1beta/nothing"))
      const [first] = yield* emulator.requests
      expect(first).toStrictEqual({
        index: 0,
        protocol: "unknown",
        flavour: "unknown",
        method: "GET",
        path: "/v1beta/models/m:generateContent",
        model: undefined,
        stream: false,
        apiKey: "unchecked",
        body: undefined,
        request: undefined,
        status: 404,
        error: "not found",
        faults: [],
        violations: [],
        outcome: "completed"
      })
      expect([emulator.openAIBaseUrl(), emulator.openAIBaseUrl("v4"), emulator.openAIBaseUrl("/x/v1")]).toStrictEqual([
        `${emulator.url}/v1`,
        `${emulator.url}/v4`,
        `${emulator.url}/x/v1`
      ])
    }))

  it.scoped("unknown routes are 404; a WebSocket upgrade is refused until Live exists", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make()
      const response = yield* Effect.promise(() => fetch(`${emulator.url}/v1beta/models`))
      expect(response.status).toBe(404)
      expect((yield* emulator.requests)[0]!.error).toBe("not found")
    }))
})
