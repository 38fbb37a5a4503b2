#!/usr/bin/env node
// The installed `agentfx`: the bundled command in ../dist (made by `npx -y pnpm@10 build`). This file is kept
// in git, executable, so installing the workspace links the command before anything is built.
// `npx -y pnpm@10 agentfx -- run "…"` passes the `--` along: one leading `--` before the command means nothing.
if (process.argv[2] === "--") process.argv.splice(2, 1)
import("../dist/bin.js").catch((error) => {
  if (error?.code === "ERR_MODULE_NOT_FOUND" && String(error.message).includes("bin.js")) {
    process.stderr.write("agentfx: not built yet — run npx -y pnpm@10 build first\n")
    process.exitCode = 1
    return
  }
  throw error
})
