/**
 * server-everything and server-filesystem, devDependencies of @agentfx/tools: the programs to start them with
 * (`node <everythingBin> stdio`, `node <filesystemBin> DIR`).
 */
import { createRequire } from "node:module"
import * as path from "node:path"

const binOf = (pkg: string) =>
  path.join(path.dirname(createRequire(path.join(import.meta.dirname, "../../../tools/package.json")).resolve(`${pkg}/package.json`)), "dist", "index.js")

export const everythingBin = binOf("@modelcontextprotocol/server-everything")

export const filesystemBin = binOf("@modelcontextprotocol/server-filesystem")
