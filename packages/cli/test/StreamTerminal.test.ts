/**
 * The real terminal over streams (internal/streamTerminal.ts, which `Io.layerNodeAfter` runs over the process's own),
 * driven in-process as a person at a terminal would: stdin a PassThrough fed with what is typed or piped, stdout and
 * stderr streams that keep every byte written, the interrupt signal raised by hand. Piped and interactive input,
 * Ctrl-C both ways, the status line, colour, the early screen taken over, and what the scope's end gives back. The
 * process as a whole, on pipes and on a pseudo-terminal, is in Executable.test.ts and EarlyScreen.test.ts.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Scope from "effect/Scope"
import { EventEmitter } from "node:events"
import { PassThrough, Writable } from "node:stream"
import type { Input } from "../src/Io.js"
import * as EarlyScreen from "../src/internal/earlyScreen.js"
import * as StreamTerminal from "../src/internal/streamTerminal.js"

/** An output stream that keeps what it is given, as it is written, and says what a terminal would tell of itself. */
class Screen extends Writable {
  text = ""
  private readonly watchers = new Set<() => void>()

  constructor(readonly isTTY?: boolean, readonly columns?: number) {
    super({ decodeStrings: false })
  }

  override _write(chunk: string | Buffer, _encoding: BufferEncoding, done: () => void): void {
    this.text += chunk.toString()
    for (const watcher of [...this.watchers]) watcher()
    done()
  }

  /** Waits until what was written ends with `tail`. */
  readonly shows = (tail: string): Effect.Effect<void> =>
    Effect.async<void>((resume) => {
      if (this.text.endsWith(tail)) return resume(Effect.void)
      const watcher = () => {
        if (!this.text.endsWith(tail)) return
        this.watchers.delete(watcher)
        resume(Effect.void)
      }
      this.watchers.add(watcher)
      return Effect.sync(() => this.watchers.delete(watcher))
    })
}

interface Options {
  /** stdin is a terminal (the line editor reads it in terminal mode). */
  readonly keyboard?: boolean
  readonly stdout?: { readonly isTTY?: boolean }
  readonly stderr?: { readonly isTTY?: boolean; readonly columns?: number }
  readonly env?: Readonly<Record<string, string | undefined>>
  readonly shown?: EarlyScreen.Shown
}

/** The terminal over streams in memory, in a scope of its own, and the controls of those streams. */
const terminal = (options: Options = {}) =>
  Effect.gen(function* () {
    const stdin = Object.assign(new PassThrough(), options.keyboard === true ? { isTTY: true } : {})
    const stdout = new Screen(options.stdout?.isTTY, 80)
    const stderr = new Screen(options.stderr?.isTTY, options.stderr?.columns)
    const listeners = new Set<() => void>()
    const scope = yield* Scope.make()
    const io = yield* StreamTerminal.make(
      {
        stdin,
        stdout,
        stderr,
        env: options.env ?? {},
        onInterrupt: (listener) => {
          listeners.add(listener)
          return () => void listeners.delete(listener)
        }
      },
      options.shown
    ).pipe(Scope.extend(scope))
    /** The interrupt signal (SIGINT), as the process would receive it. */
    const signal = () => {
      for (const listener of [...listeners]) listener()
    }
    return { io, stdin, stdout, stderr, listeners, signal, close: Scope.close(scope, Exit.void) }
  })

/** readline's drawing of `prompt` and `line` on a cleared line, the cursor at its end (cursorTo, clearScreenDown). */
const drawn = (prompt: string, line = "") => `\u001b[1G\u001b[0J${prompt}${line}\u001b[${prompt.length + line.length + 1}G`

const line = (text: string): Input => ({ _tag: "Line", text })
const end: Input = { _tag: "End" }
const interrupt = (partial: string): Input => ({ _tag: "Interrupt", partial })

describe("piped input", () => {
  it.effect("the prompt is written and each line echoed; lines typed ahead are kept; the end of input is End", () =>
    Effect.gen(function* () {
      const { io, stdin, stdout, stderr, close } = yield* terminal()
      stdin.write("first\nsecond\n")
      expect(yield* io.readLine("you> ")).toEqual(line("first"))
      expect(yield* io.readLine("you> ")).toEqual(line("second"))
      stdin.end("third\n")
      expect(yield* io.readLine("you> ")).toEqual(line("third"))
      expect(yield* io.readLine("you> ")).toEqual(end)
      expect(stdout.text).toBe("you> first\nyou> second\nyou> third\nyou> \n")
      expect(stderr.text).toBe("")
      yield* close
    }))

  it.effect("stdin is not read before the first readLine: what is piped waits in it", () =>
    Effect.gen(function* () {
      const { io, stdin, stdout, close } = yield* terminal()
      stdin.write("hello\n")
      yield* io.out("ready\n")
      expect(stdin.readableFlowing).toBe(null)
      expect(stdin.readableLength).toBe(6)
      expect(stdin.listenerCount("data")).toBe(0)
      expect(yield* io.readLine("> ")).toEqual(line("hello"))
      expect(stdout.text).toBe("ready\n> hello\n")
      yield* close
    }))

  it.effect("control characters piped in are text, not keys: Ctrl-C in a file is no interrupt", () =>
    Effect.gen(function* () {
      const { io, stdin, stdout, close } = yield* terminal()
      stdin.end("a\u0003b\n")
      expect(yield* io.readLine("> ")).toEqual(line("a\u0003b"))
      expect(stdout.text).toBe("> a\u0003b\n")
      yield* close
    }))

  it.effect("the interrupt signal: a waiting readLine is an Interrupt with nothing typed, and `interrupted` completes", () =>
    Effect.gen(function* () {
      const { io, stdin, stdout, listeners, signal, close } = yield* terminal()
      expect(listeners.size).toBe(1)
      const waiting = yield* Effect.fork(io.interrupted)
      const reading = yield* Effect.fork(io.readLine("you> "))
      yield* stdout.shows("you> ")
      yield* Effect.yieldNow()
      signal()
      expect(yield* Fiber.join(reading)).toEqual(interrupt(""))
      yield* Fiber.join(waiting)
      expect(stdout.text).toBe("you> ^C\n")
      // Then reading goes on.
      stdin.write("again\n")
      expect(yield* io.readLine("you> ")).toEqual(line("again"))
      expect(stdout.text).toBe("you> ^C\nyou> again\n")
      yield* close
    }))
  it.effect("a readLine given up (its fiber interrupted) takes no line with it: the next readLine gets it", () =>
    Effect.gen(function* () {
      const { io, stdin, stdout, close } = yield* terminal()
      const abandoned = yield* Effect.fork(io.readLine("you> "))
      yield* stdout.shows("you> ")
      yield* Fiber.interrupt(abandoned)
      stdin.write("kept\n")
      expect(yield* io.readLine("you> ")).toEqual(line("kept"))
      expect(stdout.text).toBe("you> you> kept\n")
      yield* close
    }))
})

describe("interactive input (stdin a terminal)", () => {
  it.effect("the line editor draws the prompt and what is typed; Enter gives the line, unechoed by us", () =>
    Effect.gen(function* () {
      const { io, stdin, stdout, close } = yield* terminal({ keyboard: true, stdout: { isTTY: true } })
      const reading = yield* Effect.fork(io.readLine("you> "))
      yield* stdout.shows(drawn("you> "))
      stdin.write("hi\r")
      expect(yield* Fiber.join(reading)).toEqual(line("hi"))
      expect(stdout.text).toBe(`${drawn("you> ")}hi\r\n`)
      yield* close
    }))

  it.effect("Ctrl-C on stdin: ^C shown, the partial line cleared and handed over, `interrupted` completes", () =>
    Effect.gen(function* () {
      const { io, stdin, stdout, close } = yield* terminal({ keyboard: true, stdout: { isTTY: true } })
      const waiting = yield* Effect.fork(io.interrupted)
      yield* Effect.yieldNow()
      const reading = yield* Effect.fork(io.readLine("you> "))
      yield* stdout.shows(drawn("you> "))
      stdin.write("hel")
      stdin.write("\u0003")
      expect(yield* Fiber.join(reading)).toEqual(interrupt("hel"))
      yield* Fiber.join(waiting)
      expect(stdout.text).toBe(`${drawn("you> ")}hel${drawn("you> ")}^C\n`)
      // The cleared line is not part of the next one.
      const next = yield* Effect.fork(io.readLine("you> "))
      yield* stdout.shows(drawn("you> "))
      stdin.write("lo\r")
      expect(yield* Fiber.join(next)).toEqual(line("lo"))
      yield* close
    }))

  it.effect("Ctrl-C at an empty prompt: ^C alone, nothing to clear", () =>
    Effect.gen(function* () {
      const { io, stdin, stdout, close } = yield* terminal({ keyboard: true, stdout: { isTTY: true } })
      const reading = yield* Effect.fork(io.readLine("you> "))
      yield* stdout.shows(drawn("you> "))
      stdin.write("\u0003")
      expect(yield* Fiber.join(reading)).toEqual(interrupt(""))
      expect(stdout.text).toBe(`${drawn("you> ")}^C\n`)
      yield* close
    }))

  it.effect("Ctrl-D at an empty prompt is End", () =>
    Effect.gen(function* () {
      const { io, stdin, stdout, close } = yield* terminal({ keyboard: true, stdout: { isTTY: true } })
      const reading = yield* Effect.fork(io.readLine("you> "))
      yield* stdout.shows(drawn("you> "))
      stdin.write("\u0004")
      expect(yield* Fiber.join(reading)).toEqual(end)
      yield* close
    }))
})

describe("the status line", () => {
  it.effect("only on a terminal's stderr: shown, then cleared before any out, err or readLine, once each", () =>
    Effect.gen(function* () {
      const { io, stdin, stdout, stderr, close } = yield* terminal({ stderr: { isTTY: true, columns: 40 } })
      expect(io.interactive).toBe(true)
      // Nothing shown: nothing to clear.
      yield* io.out("a")
      expect(stderr.text).toBe("")
      yield* io.status("working")
      yield* io.out("b")
      yield* io.out("c")
      yield* io.status("again")
      yield* io.err("oops\n")
      yield* io.status("more")
      stdin.write("x\n")
      expect(yield* io.readLine("> ")).toEqual(line("x"))
      expect(stderr.text).toBe("working\r\u001b[2Kagain\r\u001b[2Koops\nmore\r\u001b[2K")
      expect(stdout.text).toBe("abc> x\n")
      yield* close
    }))

  it.effect("a new status replaces the last; \"\" clears it and shows nothing, so nothing is left to clear", () =>
    Effect.gen(function* () {
      const { io, stderr, close } = yield* terminal({ stderr: { isTTY: true, columns: 40 } })
      yield* io.status("one")
      yield* io.status("two")
      yield* io.status("")
      yield* io.out("x")
      expect(stderr.text).toBe("one\r\u001b[2Ktwo\r\u001b[2K")
      yield* close
    }))

  it.effect("stderr not a terminal: no status line at all", () =>
    Effect.gen(function* () {
      const { io, stdout, stderr, close } = yield* terminal({ stderr: { columns: 40 } })
      expect(io.interactive).toBe(false)
      yield* io.status("working")
      yield* io.out("a")
      yield* io.err("b")
      expect(stderr.text).toBe("b")
      expect(stdout.text).toBe("a")
      yield* close
    }))

  it.effect("one line: below the width whole, at the width and past it cut to width - 2 and …; width 0 counts as 80", () =>
    Effect.gen(function* () {
      const narrow = yield* terminal({ stderr: { isTTY: true, columns: 10 } })
      yield* narrow.io.status("123456789")
      yield* narrow.io.status("1234567890")
      yield* narrow.io.status("12345678901")
      expect(narrow.stderr.text).toBe("123456789\r\u001b[2K12345678…\r\u001b[2K12345678…")
      yield* narrow.close
      const unknown = yield* terminal({ stderr: { isTTY: true, columns: 0 } })
      yield* unknown.io.status("x".repeat(79))
      yield* unknown.io.status("y".repeat(80))
      expect(unknown.stderr.text).toBe(`${"x".repeat(79)}\r\u001b[2K${"y".repeat(78)}…`)
      yield* unknown.close
    }))
})

describe("what the terminal says of itself", () => {
  it.effect("isTTY is stdout's; colour from the environment and stdout (NO_COLOR, FORCE_COLOR)", () =>
    Effect.gen(function* () {
      const cases: ReadonlyArray<readonly [Options, boolean, boolean]> = [
        [{ stdout: { isTTY: true } }, true, true],
        [{ stdout: { isTTY: true }, env: { NO_COLOR: "1" } }, true, false],
        [{}, false, false],
        [{ env: { FORCE_COLOR: "1" } }, false, true],
        [{ stdout: { isTTY: false }, stderr: { isTTY: true } }, false, false]
      ]
      for (const [options, isTTY, color] of cases) {
        const { io, close } = yield* terminal(options)
        expect([io.isTTY, io.color]).toEqual([isTTY, color])
        yield* close
      }
    }))
})

describe("the early screen taken over", () => {
  const shown: EarlyScreen.Shown = { stderr: "provider line\n", stdout: "hello\nyou> " }

  it.effect("piped: what is shown already is skipped, and the prompt already up is not written again", () =>
    Effect.gen(function* () {
      const { io, stdin, stdout, stderr, close } = yield* terminal({ shown })
      yield* io.err("provider line\n")
      yield* io.out("hello\n")
      stdin.write("hi\n")
      expect(yield* io.readLine("you> ")).toEqual(line("hi"))
      yield* io.out("answer\n")
      expect(stdout.text).toBe("hi\nanswer\n")
      expect(stderr.text).toBe("")
      yield* close
    }))

  it.effect("anything else first takes the prompt back: a new line when stdout is piped, the line cleared on a terminal", () =>
    Effect.gen(function* () {
      const piped = yield* terminal({ shown })
      yield* piped.io.err("agentfx: oops\n")
      yield* piped.io.err("provider line\n")
      expect(piped.stdout.text).toBe("\n")
      expect(piped.stderr.text).toBe("agentfx: oops\nprovider line\n")
      yield* piped.close
      const onTerminal = yield* terminal({ shown, stdout: { isTTY: true } })
      yield* onTerminal.io.err("provider line\n")
      yield* onTerminal.io.out("session notes\n")
      expect(onTerminal.stdout.text).toBe("\r\u001b[2Ksession notes\n")
      expect(onTerminal.stderr.text).toBe("")
      yield* onTerminal.close
    }))

  it.effect("another prompt takes it back before it is written", () =>
    Effect.gen(function* () {
      const { io, stdin, stdout, close } = yield* terminal({ shown })
      yield* io.err("provider line\n")
      yield* io.out("hello\n")
      stdin.write("hi\n")
      expect(yield* io.readLine("live> ")).toEqual(line("hi"))
      expect(stdout.text).toBe("\nlive> hi\n")
      yield* close
    }))

  it.effect("a status line takes it back; clearing one does not", () =>
    Effect.gen(function* () {
      const { io, stdout, stderr, close } = yield* terminal({ shown, stderr: { isTTY: true, columns: 40 } })
      yield* io.status("")
      expect(stdout.text).toBe("")
      yield* io.status("loading")
      expect(stdout.text).toBe("\n")
      expect(stderr.text).toBe("loading")
      yield* close
    }))

  it.effect("interactive: the line editor draws the prompt again on its cleared line, then what was typed ahead", () =>
    Effect.gen(function* () {
      const keys = new EventEmitter()
      const typed = EarlyScreen.TypeAhead.start({
        setRawMode: () => undefined,
        on: (event, listener) => keys.on(event, listener),
        off: (event, listener) => keys.off(event, listener),
        pause: () => undefined
      }, () => undefined, () => undefined)
      keys.emit("data", Buffer.from("what is"))
      const { io, stdin, stdout, close } = yield* terminal({ keyboard: true, stdout: { isTTY: true }, shown: { ...shown, typed } })
      yield* io.err("provider line\n")
      yield* io.out("hello\n")
      const reading = yield* Effect.fork(io.readLine("you> "))
      yield* stdout.shows(`${drawn("you> ")}what is`)
      stdin.write(" 6 * 7\r")
      expect(yield* Fiber.join(reading)).toEqual(line("what is 6 * 7"))
      expect(stdout.text).toBe(`\r\u001b[2K${drawn("you> ")}what is 6 * 7\r\n`)
      yield* close
    }))

  it.effect("interactive without an early screen: the prompt drawn once, no line cleared first", () =>
    Effect.gen(function* () {
      const { io, stdin, stdout, close } = yield* terminal({ keyboard: true, stdout: { isTTY: true } })
      stdin.write("a\r")
      expect(yield* io.readLine("you> ")).toEqual(line("a"))
      const next = yield* Effect.fork(io.readLine("you> "))
      yield* stdout.shows(drawn("you> "))
      stdin.write("b\r")
      expect(yield* Fiber.join(next)).toEqual(line("b"))
      expect(stdout.text).toBe(`${drawn("you> ")}a\r\n${drawn("you> ")}b\r\n`)
      yield* close
    }))
})

describe("the end of the scope", () => {
  it.effect("the signal is unsubscribed and the line editor closed; a terminal never read has nothing to close", () =>
    Effect.gen(function* () {
      const unread = yield* terminal()
      yield* unread.close
      expect(unread.listeners.size).toBe(0)
      for (const keyboard of [false, true]) {
        const { io, stdin, listeners, close } = yield* terminal({ keyboard })
        stdin.write(keyboard ? "x\r" : "x\n")
        expect(yield* io.readLine("> ")).toEqual(line("x"))
        expect(stdin.listenerCount("end")).toBe(1)
        yield* close
        expect(listeners.size).toBe(0)
        expect(stdin.listenerCount("end")).toBe(0)
        expect(stdin.isPaused()).toBe(true)
      }
    }))
})
