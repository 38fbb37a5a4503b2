/**
 * `agentfx emulator --port N` when the port cannot be listened on for another reason than being in use (EACCES: a
 * port below 1024 without root). Tests run as root here, so the refusal is made by a probe server that fails as
 * the operating system would; every other use of `node:net` is the real one. The file runs in a worker of its own
 * (`isolated` in vitest.config.ts): in a shared one the handler may already be loaded with the real `node:net`. For
 * that reason it is in no mutation run either (their preload loads every module before the mock).
 */
import { afterEach, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { EventEmitter } from "node:events"
import type * as Net from "node:net"
import { vi } from "vitest"
import { agentfx } from "./support/cli.js"

/** The error the next server made fails to listen with, if any. */
const refusal: { error?: NodeJS.ErrnoException } = {}

vi.mock("node:net", async (importOriginal) => {
  const real = await importOriginal<typeof Net>()
  const createServer = (...args: Parameters<typeof Net.createServer>) => {
    const error = refusal.error
    if (error === undefined) return real.createServer(...args)
    // A server that fails to listen, as net.Server does: an "error" event after listen is called.
    const server = new EventEmitter()
    return Object.assign(server, { listen: () => process.nextTick(() => server.emit("error", error)) })
  }
  return { ...real, createServer, default: { ...real, createServer } }
})

afterEach(() => {
  delete refusal.error
})

describe("agentfx emulator, a port it may not listen on", () => {
  it.live("EACCES is said as the system says it, not as a port in use; exit 1", () =>
    Effect.gen(function* () {
      refusal.error = Object.assign(new Error("listen EACCES: permission denied 127.0.0.1:80"), { code: "EACCES" })
      expect(yield* agentfx(["emulator", "--port", "80"])).toStrictEqual({
        code: 1,
        stdout: "",
        stderr: "agentfx: cannot listen on 127.0.0.1:80: listen EACCES: permission denied 127.0.0.1:80\n"
      })
    }))

  it.live("EADDRINUSE is said as a port in use", () =>
    Effect.gen(function* () {
      refusal.error = Object.assign(new Error("listen EADDRINUSE: address already in use 127.0.0.1:8080"), { code: "EADDRINUSE" })
      expect(yield* agentfx(["emulator", "--port", "8080"])).toStrictEqual({
        code: 1,
        stdout: "",
        stderr: "agentfx: cannot listen on 127.0.0.1:8080: the port is in use\n"
      })
    }))
})
