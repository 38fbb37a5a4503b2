/**
 * What the model sees of an MCP tool result: its structured content when the server gives one (an object, as the
 * tool's output schema says), else its text when everything is text, else each piece described — text as is,
 * images and audio by type and size (their bytes would only waste the model's context), resources by URI.
 */

/** The parts of a `tools/call` result this module reads. */
export interface CallResult {
  readonly content?: ReadonlyArray<Content> | undefined
  readonly structuredContent?: Record<string, unknown> | undefined
  readonly isError?: boolean | undefined
}

type Content =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "image" | "audio"; readonly data: string; readonly mimeType: string }
  | { readonly type: "resource_link"; readonly uri: string; readonly name?: string; readonly mimeType?: string }
  | { readonly type: "resource"; readonly resource: { readonly uri: string; readonly text?: string; readonly blob?: string; readonly mimeType?: string } }
  | { readonly type: string }

const describe = (content: Content): unknown => {
  switch (content.type) {
    case "text":
      return (content as { text: string }).text
    case "image":
    case "audio": {
      const media = content as { type: string; data: string; mimeType: string }
      return { type: media.type, mimeType: media.mimeType, bytes: Math.floor((media.data.length * 3) / 4) }
    }
    case "resource_link": {
      const link = content as { uri: string; name?: string; mimeType?: string }
      return { type: "resource_link", uri: link.uri, ...(link.name === undefined ? {} : { name: link.name }), ...(link.mimeType === undefined ? {} : { mimeType: link.mimeType }) }
    }
    case "resource": {
      const { resource } = content as { resource: { uri: string; text?: string; blob?: string; mimeType?: string } }
      return resource.text !== undefined
        ? { type: "resource", uri: resource.uri, text: resource.text }
        : { type: "resource", uri: resource.uri, mimeType: resource.mimeType, bytes: Math.floor(((resource.blob ?? "").length * 3) / 4) }
    }
    default:
      return { type: content.type }
  }
}

/**
 * The model-visible value of a result (the executor wraps a non-object in `{output}`). An error says what went wrong
 * in its content; one with none but structured content says it there, rather than in an empty message.
 */
export const contentOf = (result: CallResult): unknown => {
  const content = result.content ?? []
  if (result.structuredContent !== undefined && (result.isError !== true || content.length === 0)) return result.structuredContent
  if (content.every((piece) => piece.type === "text")) return content.map((piece) => (piece as { text: string }).text).join("\n")
  return content.map(describe)
}
