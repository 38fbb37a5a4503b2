import { Command, Options } from "@effect/cli"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Builtins from "../Builtins.js"
import * as Repl from "../Repl.js"
import * as SessionFile from "../SessionFile.js"
import { withModel } from "../internal/withModel.js"
import * as options from "../internal/options.js"

const session = Options.text("session").pipe(
  Options.withDescription(
    `Keep the conversation in ${SessionFile.defaultDirectory}/NAME.json (AGENTFX_SESSIONS_DIR moves the directory): resumed when it exists, saved after every message.`
  ),
  Options.optional
)

export const command = Command.make("chat", { ...options.agent, session }, (args) =>
  Effect.gen(function* () {
    const named = Option.isSome(args.session) ? { name: args.session.value, path: yield* SessionFile.pathOf(args.session.value) } : undefined
    const repl = Repl.run({
      registry: Builtins.registry({ root: args.root, allowHosts: args.allowHost, approval: !args.yes }),
      system: Option.getOrUndefined(args.system),
      maxTurns: Option.getOrUndefined(args.maxTurns),
      concurrency: Option.getOrUndefined(args.concurrency),
      autoApprove: args.yes,
      session: named
    })
    yield* withModel(args.provider, options.settings(args), () => repl)
  })
).pipe(
  Command.withDescription(
    "An interactive chat on stdin/stdout with the built-in tools (see `agentfx tools`): replies streamed, tool calls shown, and fetch_url asks before it runs (unless --yes). Ctrl-C cancels the current reply, not the session; Ctrl-C twice at an empty prompt, /exit or Ctrl-D quits. In the chat: /save FILE, /load FILE, /system TEXT, /tools, /help, /exit."
  )
)
