/**
 * The input side of a terminal, shared by the real one (`streamTerminal.ts`) and the one in memory (`Io.memory`): a
 * buffer of lines, an end flag, and the parties waiting for a line or a Ctrl-C; and how a terminal shows an input
 * once it is read.
 */
import * as Effect from "effect/Effect"
import type { Input } from "../Io.js"

/** What a terminal shows for an input once it is read. */
export const echo = (input: Input): string => (input._tag === "Line" ? `${input.text}\n` : input._tag === "Interrupt" ? "^C\n" : "\n")

/**
 * Lines, the end, and Ctrl-Cs, as they come, for whoever reads them. Every waiter present when Ctrl-C arrives sees
 * it; a Ctrl-C nobody waits for is dropped.
 */
export class Inputs {
  private readonly lines: Array<string> = []
  private ended = false
  private readonly lineWaiters = new Set<(input: Input) => void>()
  private readonly interruptWaiters = new Set<(partial: string) => void>()

  pushLine(text: string): void {
    const [waiter] = this.lineWaiters
    if (waiter === undefined) {
      this.lines.push(text)
      return
    }
    this.lineWaiters.delete(waiter)
    waiter({ _tag: "Line", text })
  }

  end(): void {
    this.ended = true
    for (const waiter of [...this.lineWaiters]) waiter({ _tag: "End" })
    this.lineWaiters.clear()
  }

  interrupt(partial: string): void {
    const waiters = [...this.interruptWaiters]
    this.interruptWaiters.clear()
    for (const waiter of waiters) waiter(partial)
  }

  readonly next: Effect.Effect<Input> = Effect.async<Input>((resume) => {
    const line = this.lines.shift()
    if (line !== undefined) return resume(Effect.succeed({ _tag: "Line", text: line }))
    if (this.ended) return resume(Effect.succeed({ _tag: "End" }))
    const onInterrupt = (partial: string) => {
      this.lineWaiters.delete(onInput)
      resume(Effect.succeed({ _tag: "Interrupt", partial }))
    }
    const onInput = (input: Input) => {
      this.interruptWaiters.delete(onInterrupt)
      resume(Effect.succeed(input))
    }
    this.lineWaiters.add(onInput)
    this.interruptWaiters.add(onInterrupt)
    return Effect.sync(() => {
      this.lineWaiters.delete(onInput)
      this.interruptWaiters.delete(onInterrupt)
    })
  })

  readonly interrupted: Effect.Effect<void> = Effect.async<void>((resume) => {
    const onInterrupt = () => resume(Effect.void)
    this.interruptWaiters.add(onInterrupt)
    return Effect.sync(() => this.interruptWaiters.delete(onInterrupt))
  })
}
