/** server-everything, a devDependency of @agentfx/tools: the program to start it with (`node <it> stdio`). */
import { createRequire } from "node:module"
import * as path from "node:path"

export const everythingBin = path.join(
  path.dirname(createRequire(path.join(import.meta.dirname, "../../../tools/package.json")).resolve("@modelcontextprotocol/server-everything/package.json")),
  "dist",
  "index.js"
)
