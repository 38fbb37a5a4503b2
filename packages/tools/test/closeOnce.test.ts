import type { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { describe, expect, it } from "@effect/vitest"
import { spawn } from "node:child_process"
import { vi } from "vitest"
import { closeOnce } from "../src/internal/closeOnce.js"

/** What closeOnce touches of a stdio transport: `start`, `close` and `pid`. */
const fakeTransport = (pid: number | null) => {
  const calls = { start: 0, close: 0 }
  let release: () => void = () => {}
  const transport = {
    pid: null as number | null,
    start: async () => {
      calls.start++
      transport.pid = pid
    },
    close: () => {
      calls.close++
      return new Promise<void>((resolve) => (release = resolve))
    }
  }
  return { transport, calls, release: () => release() }
}

const asStdio = (transport: object) => transport as unknown as StdioClientTransport

describe("closeOnce: a stdio transport's close, once for everyone", () => {
  it("every close is the first one's promise, and the transport's own close runs once", async () => {
    const fake = fakeTransport(null)
    const transport = asStdio(fake.transport)
    closeOnce(transport)
    const first = transport.close()
    const second = transport.close()
    expect(second).toBe(first)
    expect(fake.calls.close).toBe(1)
    let settled = false
    void second.then(() => (settled = true))
    await Promise.resolve()
    expect(settled).toBe(false)
    fake.release()
    await first
    expect(settled).toBe(true)
  })

  it("stop sends SIGTERM to the process the transport started, and does nothing before it started", async () => {
    const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" })
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once("exit", (_code, signal) => resolve(signal)))
    // Watched, not replaced: the signal is really sent.
    const kill = vi.spyOn(process, "kill")
    try {
      const fake = fakeTransport(child.pid!)
      const transport = asStdio(fake.transport)
      const { stop } = closeOnce(transport)
      stop()
      expect(kill).not.toHaveBeenCalled()
      await transport.start()
      expect(fake.calls.start).toBe(1)
      stop()
      expect(kill).toHaveBeenCalledWith(child.pid, "SIGTERM")
      expect(await exited).toBe("SIGTERM")
      // A second stop, the process gone: nothing is thrown.
      expect(() => stop()).not.toThrow()
    } finally {
      kill.mockRestore()
      child.kill("SIGKILL")
    }
  })
})
