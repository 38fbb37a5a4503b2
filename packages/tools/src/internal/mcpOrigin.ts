/**
 * Where each MCP tool comes from, kept beside the tool rather than in it: the tool is what the model is offered, the
 * origin is for people (`agentfx tools`, a chat's `/tools`, the note when a name was prefixed). Kept by identity, so a
 * tool copied under another name is given an origin of its own.
 */
import type { Tool } from "@agentfx/core"
import type { Origin } from "../Mcp.js"

const origins = new WeakMap<Tool.Any, Origin>()

/** Notes where `tool` comes from; returns it. */
export const remember = <T extends Tool.Any>(tool: T, origin: Origin): T => {
  origins.set(tool, origin)
  return tool
}

export const originOf = (tool: Tool.Any): Origin | undefined => origins.get(tool)
