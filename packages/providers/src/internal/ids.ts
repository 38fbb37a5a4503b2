import type { Transcript } from "@agentfx/core"

/**
 * Ids for calls a provider gave none: `<prefix><n>` where n counts every call of the conversation so far, so the
 * same transcript always yields the same ids (the layer and a decoder of the whole request agree).
 */
export interface IdSource {
  readonly next: (position: number) => string
}

export const idSource = (prefix: string, callsBefore: number, taken: () => ReadonlySet<string>): IdSource => {
  let used: Set<string> | undefined
  return {
    next: (position) => {
      used ??= new Set(taken())
      const base = `${prefix}${callsBefore + position + 1}`
      let id = base
      for (let k = 2; used.has(id); k++) id = `${base}_${k}`
      used.add(id)
      return id
    }
  }
}

export const countCalls = (transcript: Transcript.Transcript): number =>
  transcript.reduce((n, turn) => n + turn.parts.reduce((m, part) => (part._tag === "FunctionCall" ? m + 1 : m), 0), 0)

export const idsOf = (transcript: Transcript.Transcript): Set<string> => {
  const ids = new Set<string>()
  for (const turn of transcript) for (const part of turn.parts) if (part._tag === "FunctionCall") ids.add(part.id)
  return ids
}

/** The id source for the model turn that answers `transcript`; `reserved` are ids the answer itself holds. */
export const idSourceAfter = (prefix: string, transcript: Transcript.Transcript, reserved: ReadonlyArray<string>): IdSource =>
  idSource(prefix, countCalls(transcript), () => {
    const ids = idsOf(transcript)
    for (const id of reserved) ids.add(id)
    return ids
  })
