/**
 * The chat's first words and its prompt, with no imports: the REPL prints them, and the executable prints the same
 * before the chat's program is loaded (see `earlyScreen.ts`).
 */

/** The prompt before each message. */
export const prompt = "you> "

/** The line the chat starts with (after a session's own line, when it has one). */
export const greeting = "agentfx chat — /help for commands; Ctrl-C cancels a reply; /exit or Ctrl-D quits."
