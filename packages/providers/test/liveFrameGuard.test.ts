/**
 * The frame guard on a stand-in of the SDK's socket factory: every kind of frame the socket can deliver (text,
 * a Buffer, an ArrayBuffer, fragments) reaches the SDK only when it is JSON within the size limit; anything else
 * goes to `onMalformed` with the reason, and the SDK's callback is never called with it.
 */
import type { GoogleGenAI } from "@google/genai"
import { describe, expect, it } from "@effect/vitest"
import * as frameGuard from "../src/internal/live/frameGuard.js"

interface Callbacks {
  readonly onopen: () => void
  readonly onerror: (event: unknown) => void
  readonly onmessage: (event: { readonly data: unknown }) => void
  readonly onclose: (event: unknown) => void
}

/** A client whose factory records what it was given and hands back a socket that counts its closes. */
const standIn = (options: { readonly closeThrows?: boolean } = {}) => {
  const seen: Array<unknown> = []
  const created: Array<{ url: string; headers: Record<string, string>; callbacks: Callbacks }> = []
  const socket = {
    closes: 0,
    close: () => {
      socket.closes++
      if (options.closeThrows === true) throw new Error("WebSocket is not open")
    }
  }
  const factory = {
    create: (url: string, headers: Record<string, string>, callbacks: Callbacks) => {
      created.push({ url, headers, callbacks })
      return socket
    }
  }
  const client = { live: { webSocketFactory: factory } } as unknown as GoogleGenAI
  const sdkCallbacks: Callbacks = { onopen: () => seen.push("open"), onerror: (event) => seen.push(["error", event]), onmessage: (event) => seen.push(event.data), onclose: (event) => seen.push(["close", event]) }
  const open = () => (client.live as unknown as { webSocketFactory: typeof factory }).webSocketFactory.create("wss://x", { h: "1" }, sdkCallbacks)
  const deliver = (data: unknown) => created[created.length - 1]!.callbacks.onmessage({ data })
  return { client, seen, created, socket, open, deliver }
}

const installed = (maxFrameBytes?: number, options?: { readonly closeThrows?: boolean }) => {
  const fixture = standIn(options)
  const malformed: Array<string> = []
  const guard = frameGuard.install(fixture.client, (reason) => malformed.push(reason), maxFrameBytes)
  return { ...fixture, guard, malformed }
}

describe("frame guard — what reaches the SDK", () => {
  it("JSON in every shape the socket delivers passes through unchanged", () => {
    const { open, deliver, seen, malformed } = installed()
    open()
    const text = '{"setupComplete":{}}'
    const frames = [text, Buffer.from(text), new Uint8Array(Buffer.from(text)).buffer, [Buffer.from('{"setup'), Buffer.from('Complete":{}}')]]
    for (const frame of frames) deliver(frame)
    expect(seen).toEqual(frames)
    expect(malformed).toEqual([])
  })

  it("the factory still gets the URL, headers and the SDK's other callbacks as they were", () => {
    const { open, created, seen } = installed()
    open()
    expect(created[0]).toMatchObject({ url: "wss://x", headers: { h: "1" } })
    created[0]!.callbacks.onopen()
    created[0]!.callbacks.onerror("e")
    created[0]!.callbacks.onclose("c")
    expect(seen).toEqual(["open", ["error", "e"], ["close", "c"]])
  })

  it("a frame that is not JSON is held back and reported, with the parser's reason", () => {
    const { open, deliver, seen, malformed } = installed()
    open()
    deliver("this is not JSON")
    deliver(Buffer.from("{oops"))
    expect(seen).toEqual([])
    expect(malformed).toHaveLength(2)
    for (const reason of malformed) expect(reason).toMatch(/^the server sent a frame that is not JSON \(.+\)$/)
  })

  it("a frame that is neither text nor bytes is held back", () => {
    const { open, deliver, seen, malformed } = installed()
    open()
    for (const frame of [42, { a: 1 }, [Buffer.from("{}"), "{}"], undefined]) deliver(frame)
    expect(seen).toEqual([])
    expect(malformed).toEqual(Array.from({ length: 4 }, () => "the server sent a frame that is neither text nor bytes"))
  })

  it("the size limit counts bytes, not characters, and a frame of exactly the limit passes", () => {
    const { open, deliver, seen, malformed } = installed(8)
    open()
    deliver('"123456"') // 8 bytes
    deliver('"1234567"') // 9 bytes
    deliver('"ééé"') // 5 characters, 8 bytes
    deliver('"éééé"') // 6 characters, 10 bytes
    expect(seen).toEqual(['"123456"', '"ééé"'])
    expect(malformed).toEqual([
      "the server sent a frame larger than the limit of 8 bytes (maxResponseBytes)",
      "the server sent a frame larger than the limit of 8 bytes (maxResponseBytes)"
    ])
  })
})

describe("frame guard — the socket it keeps", () => {
  it("closeSocket closes the socket the SDK opened, even before connect() settled", () => {
    const { open, guard, socket } = installed()
    guard!.closeSocket()
    expect(socket.closes).toBe(0)
    open()
    guard!.closeSocket()
    expect(socket.closes).toBe(1)
  })

  it("a socket that cannot be closed yet does not throw out of closeSocket", () => {
    const { open, guard, socket } = installed(undefined, { closeThrows: true })
    open()
    expect(() => guard!.closeSocket()).not.toThrow()
    expect(socket.closes).toBe(1)
  })

  it("an SDK without the factory it wraps is said, not silently unguarded", () => {
    const onMalformed = () => undefined
    expect(frameGuard.install({ live: {} } as unknown as GoogleGenAI, onMalformed)).toBeUndefined()
    expect(frameGuard.install({ live: { webSocketFactory: { create: "no" } } } as unknown as GoogleGenAI, onMalformed)).toBeUndefined()
  })
})
