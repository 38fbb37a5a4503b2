/**
 * The tools of a live session that follows a registry's source (MCP servers). A Live server takes the tools only in
 * a connection's setup, so a change is declared by moving, at a quiet moment, to a connection resumed from the
 * session's handle; see `Tools`.
 */
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as FiberId from "effect/FiberId"
import type * as Scope from "effect/Scope"
import type { FunctionDeclaration } from "../../FunctionDeclaration.js"
import { canonical } from "../../Json.js"
import type { Registry, Source } from "../../Registry.js"

/** How two tool lists differ, by name (each list in the order of the tools it names). */
export interface Change {
  readonly added: ReadonlyArray<string>
  readonly removed: ReadonlyArray<string>
  /** Declared under the same name with another description, parameters or behavior. */
  readonly changed: ReadonlyArray<string>
}

/** What tells the model other tools; undefined when the declarations are the same (in any order). */
export const changeOf = (before: ReadonlyArray<FunctionDeclaration>, after: ReadonlyArray<FunctionDeclaration>): Change | undefined => {
  const old = new Map(before.map((declaration) => [declaration.name, canonical(declaration)]))
  const names = new Set(after.map((declaration) => declaration.name))
  const added = after.filter((declaration) => !old.has(declaration.name)).map((declaration) => declaration.name)
  const removed = before.filter((declaration) => !names.has(declaration.name)).map((declaration) => declaration.name)
  const changed = after.filter((declaration) => old.has(declaration.name) && old.get(declaration.name) !== canonical(declaration)).map((declaration) => declaration.name)
  return added.length + removed.length + changed.length === 0 ? undefined : { added, removed, changed }
}

/** Whether a reconnect now would resume everything said so far. */
export type Resumable =
  /** The server has not given a handle yet: a new connection would start a new conversation. */
  | "none"
  /** Something was sent since the last handle: the next one will cover it. */
  | "stale"
  | "fresh"

/** What the tools need of the session. */
export interface Hooks {
  /** No call outstanding and no turn under way on the connection in use (and it is not being left). */
  readonly quiet: () => boolean
  readonly resumable: () => Resumable
  /** The number of the turn in progress (or of the next one). */
  readonly turn: () => number
  /** Leaves the connection in use for a resumed one that declares the session's (new) tools. */
  readonly redeclare: (change: Change) => Effect.Effect<void>
  /** Where a listing runs: it must not hold up the reading of the socket. */
  readonly scope: Scope.Scope
}

/**
 * A live session's tools. A Live server takes the tools once, in the setup, so a session whose registry has a
 * source follows it between turns: when the source's version has moved, at a quiet moment it lists the tools again
 * and, if the declarations changed, moves to a connection resumed from the last handle whose setup declares them.
 * Without a handle it keeps its tools (a new connection would start a new conversation) and warns once; a listing
 * that fails is logged and tried again after the next turn.
 */
export class Tools<R> {
  /** The tools declared on the connection in use, and the ones its calls run with. */
  current: Registry<R>
  private readonly source: Source<R> | undefined
  /** The source's version `current` was read at. */
  private version: number
  /** Tools listed that differ from `current`, waiting for a moment to be declared. */
  private listed: { readonly registry: Registry<R>; readonly version: number; readonly change: Change } | undefined
  /** The listing in flight: done when it has ended (and what it found was acted on). */
  private listing: Deferred.Deferred<void> | undefined
  /** The turn during which a listing failed: the next try waits for a later turn. */
  private failedAt: number | undefined
  private warned = false
  /** The tools before the last change, until a connection has declared it (if the server refuses it, these stay). */
  private before: Registry<R> | undefined

  constructor(registry: Registry<R>, private readonly hooks: Hooks) {
    this.current = registry
    this.source = registry.source
    this.version = registry.source === undefined ? 0 : (registry.sourceVersion ?? registry.source.version())
  }

  /**
   * A quiet moment: declare tools listed earlier, or start listing them if the source moved since. `asked` when a
   * user message is about to go out (then going on with the old tools is worth a warning; after a turn the server's
   * first handle is usually on its way).
   */
  check(asked = false): Effect.Effect<void> {
    return Effect.suspend(() => {
      const source = this.source
      if (source === undefined || !this.hooks.quiet()) return Effect.void
      const version = source.version()
      if (this.listed !== undefined && this.listed.version === version) return this.declare(asked)
      if (version === this.version || this.listing !== undefined || this.failedAt === this.hooks.turn()) return Effect.void
      const listing = Deferred.unsafeMake<void>(FiberId.none)
      this.listing = listing
      // Interruptible whoever asked (a send made where interruption is off): the scope's end stops the listing.
      const run = this.list(source, version, asked).pipe(Effect.ensuring(Deferred.succeed(listing, undefined)), Effect.interruptible)
      return Effect.asVoid(Effect.forkIn(run, this.hooks.scope))
    })
  }

  /** Before a user message: a quiet moment, and the listing it starts (or one in flight) is waited for. */
  get settled(): Effect.Effect<void> {
    return Effect.zipRight(
      this.check(true),
      Effect.suspend(() => (this.listing === undefined ? Effect.void : Effect.zipRight(Deferred.await(this.listing), this.check(true))))
    )
  }

  private list(source: Source<R>, version: number, asked: boolean): Effect.Effect<void> {
    // A listing that dies (a bug of the source) is treated as one that failed: the fiber it runs in is not watched
    // by anyone, so a defect left to end it would leave the session silently no longer following its tools.
    const listing = Effect.catchAllDefect(source.current, (defect) => Effect.fail(defect))
    return Effect.flatMap(Effect.either(listing), (listed) =>
      Effect.suspend(() => {
        this.listing = undefined
        if (listed._tag === "Left") {
          this.failedAt = this.hooks.turn()
          return Effect.logWarning("the tools could not be refreshed; the live session keeps its tools and tries again after the next turn", listed.left)
        }
        const change = changeOf(this.current.declarations, listed.right.declarations)
        if (change === undefined) {
          // Same declarations: nothing to tell the server, but calls run with the tools as listed now.
          this.current = listed.right
          this.version = version
          this.listed = undefined
          return Effect.void
        }
        this.listed = { registry: listed.right, version, change }
        // The quiet moment may have passed while listing: then the next one declares them.
        return this.check(asked)
      })
    ).pipe(Effect.onInterrupt(() => Effect.sync(() => (this.listing = undefined))))
  }

  /** A connection was set up with the current tools. */
  confirm(): void {
    this.before = undefined
  }

  /**
   * The server refused the setup that declared the last change (a schema it does not take, say): the session goes
   * back to the tools before it, and follows the next change. The change back, or undefined if there is none.
   */
  refused(reason: string): Effect.Effect<Change | undefined> {
    return Effect.suspend(() => {
      const before = this.before
      if (before === undefined) return Effect.succeed(undefined)
      const back = changeOf(this.current.declarations, before.declarations)
      this.current = before
      this.before = undefined
      return Effect.as(
        Effect.logWarning(`the server refused the setup that declared the changed tools: the live session goes on with its earlier tools and follows the next change (${reason})`),
        back
      )
    })
  }

  private declare(asked: boolean): Effect.Effect<void> {
    const listed = this.listed!
    const resumable = this.hooks.resumable()
    if (resumable === "none") {
      if (this.warned || !asked) return Effect.void
      this.warned = true
      return Effect.logWarning(
        `the tools changed (${describe(listed.change)}), but the server has not given a resumption handle yet: the live session keeps its tools, as a new connection would start a new conversation; it declares them once it has a handle`
      )
    }
    // Something was sent since the handle: a connection resumed with it would lose that. The next handle declares them.
    if (resumable === "stale") return Effect.void
    this.before = this.current
    this.current = listed.registry
    this.version = listed.version
    this.listed = undefined
    this.warned = false
    return this.hooks.redeclare(listed.change)
  }
}

/** "added a, b; removed c". */
export const describe = (change: Change): string =>
  [
    change.added.length === 0 ? [] : [`added ${change.added.join(", ")}`],
    change.removed.length === 0 ? [] : [`removed ${change.removed.join(", ")}`],
    change.changed.length === 0 ? [] : [`changed ${change.changed.join(", ")}`]
  ]
    .flat()
    .join("; ")
