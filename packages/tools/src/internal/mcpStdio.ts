/**
 * The stdio transport of an MCP server, with the whole server stopped when it closes.
 *
 * The SDK's own transport starts the program in agentfx's process group and, on close, signals that one process:
 * a server started through a wrapper (`bash -c`, `npx`, `uvx`) that ignored SIGTERM, or whose child did, was left
 * running after agentfx exited. Here the program gets a process group of its own (`detached`), and closing ends the
 * group: stdin closed first (a well-behaved server exits on it), then SIGTERM to the group after `grace`, then SIGKILL
 * to the group after `grace` again, each step waiting until the group has gone (`grace` at most). A group of its own
 * also keeps the terminal's Ctrl-C (sent to the foreground group) from killing the servers of a chat whose Ctrl-C only
 * cancels a reply.
 *
 * Every close is the first one's promise: the SDK's client closes its transport itself when `connect` fails, without
 * waiting, and a caller that waits for its own close must not get a promise that resolved while the group still ran.
 */
import { getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js"
import { deserializeMessage, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js"
import { type ChildProcess, spawn } from "node:child_process"
import { PassThrough } from "node:stream"
import { defaultMaxMessageBytes, LineReader, type Oversized, sizeSentence, tooLargeAnswer } from "./mcpBound.js"

export interface StdioOptions {
  readonly command: string
  readonly args: ReadonlyArray<string>
  /** Added to the safe default environment the SDK would pass on (PATH, HOME, …). */
  readonly env?: Readonly<Record<string, string>> | undefined
  readonly cwd?: string | undefined
  /** How long the server has to leave after its stdin closes, and again after SIGTERM, in ms (default 2,000). */
  readonly grace?: number | undefined
  /** The most one message (one line) may hold, in bytes (default 10 MiB): see `mcpBound`. */
  readonly maxMessageBytes?: number | undefined
  /** Told of a request or notification of the server's dropped for its size, as a sentence. */
  readonly dropped?: ((why: string) => void) | undefined
}

/** How often the group is looked at while it is given time to leave, in ms. */
const pollEvery = 20

/** Whether any process of the group `id` is still there (zombies count until their parent reaps them). */
const groupAlive = (id: number): boolean => {
  try {
    process.kill(-id, 0)
    return true
  } catch (error) {
    // EPERM: a process of the group runs as another user (it changed its own); it is there all the same.
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

const signalGroup = (id: number, signal: NodeJS.Signals): void => {
  try {
    process.kill(-id, signal)
  } catch {
    // The group has gone meanwhile.
  }
}

/** Resolves once the group has gone, or after `ms` with it still there (`false`). */
const groupGone = (id: number, ms: number): Promise<boolean> =>
  new Promise((resolve) => {
    const until = Date.now() + ms
    const look = () => {
      if (!groupAlive(id)) return resolve(true)
      if (Date.now() >= until) return resolve(false)
      // A timer that holds the event loop: a CLI whose last work is this close must not exit half-way through it.
      setTimeout(look, pollEvery)
    }
    look()
  })

export class StdioTransport implements Transport {
  onclose?: (() => void) | undefined
  onerror?: ((error: Error) => void) | undefined
  onmessage?: ((message: JSONRPCMessage) => void) | undefined
  /** What the server writes on stderr, available before it starts. */
  readonly stderr = new PassThrough()
  private child: ChildProcess | undefined
  /** The process group: the server's pid, once it runs. */
  private group: number | undefined
  private closing: Promise<void> | undefined
  private readonly reader: LineReader

  constructor(private readonly options: StdioOptions) {
    this.reader = new LineReader(options.maxMessageBytes ?? defaultMaxMessageBytes, { line: (text) => this.line(text), oversized: (message) => this.oversized(message) })
  }

  /** The server's pid (and its group's id), once it runs. */
  get pid(): number | undefined {
    return this.group
  }

  start(): Promise<void> {
    if (this.child !== undefined) return Promise.reject(new Error("the transport has already started"))
    return new Promise((resolve, reject) => {
      const child = spawn(this.options.command, [...this.options.args], {
        env: { ...getDefaultEnvironment(), ...this.options.env },
        stdio: ["pipe", "pipe", "pipe"],
        // A group of its own, on POSIX: closing ends every process in it. (Windows has no process groups to signal.)
        detached: process.platform !== "win32",
        windowsHide: true,
        // Stryker disable next-line ConditionalExpression: a cwd of undefined is spawn's default too (this process's)
        ...(this.options.cwd === undefined ? {} : { cwd: this.options.cwd })
      })
      this.child = child
      child.on("error", (error) => {
        reject(error)
        this.onerror?.(error)
      })
      child.on("spawn", () => {
        this.group = child.pid
        resolve()
      })
      child.on("close", () => {
        this.onclose?.()
      })
      child.stdin.on("error", (error) => this.onerror?.(error))
      child.stdout.on("error", (error) => this.onerror?.(error))
      child.stdout.on("data", (chunk: Buffer) => this.reader.push(chunk))
      child.stderr.pipe(this.stderr)
    })
  }

  private line(text: string): void {
    let message: JSONRPCMessage
    try {
      message = deserializeMessage(text)
    } catch (error) {
      this.onerror?.(error as Error)
      return
    }
    this.onmessage?.(message)
  }

  /** An answer too large is answered for in its place; anything else too large is dropped, and said. */
  private oversized(message: Oversized): void {
    if (message.id !== undefined && !message.hasMethod) return this.onmessage?.(tooLargeAnswer(message.id, message.size))
    this.options.dropped?.(`a message of ${sizeSentence(message.size)}, which was dropped`)
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      const stdin = this.child?.stdin
      if (stdin === undefined || stdin === null || this.closing !== undefined || !stdin.writable) return reject(new Error("Not connected"))
      if (stdin.write(serializeMessage(message))) resolve()
      else stdin.once("drain", resolve)
    })
  }

  /** Ends the server's whole process group: stdin closed, then SIGTERM, then SIGKILL, each after `grace`. */
  close(): Promise<void> {
    this.closing ??= this.end()
    return this.closing
  }

  /** Sends SIGTERM to the group now, for a server that failed to start: no grace to give it. */
  stop(): void {
    if (this.group !== undefined) signalGroup(this.group, "SIGTERM")
  }

  private async end(): Promise<void> {
    const child = this.child
    const group = this.group
    this.reader.clear()
    if (child === undefined) return
    try {
      child.stdin?.end()
    } catch {
      // Already closed.
    }
    if (group === undefined || process.platform === "win32") {
      child.kill("SIGTERM")
      return
    }
    const grace = this.options.grace ?? 2_000
    if (await groupGone(group, grace)) return
    signalGroup(group, "SIGTERM")
    if (await groupGone(group, grace)) return
    signalGroup(group, "SIGKILL")
    // SIGKILL cannot be ignored, but it takes effect a moment later: a caller that checks, or a CLI that exits right
    // after, must find the group gone. (An orphan nobody reaps stays a zombie: hence the bound.)
    await groupGone(group, grace)
  }
}
