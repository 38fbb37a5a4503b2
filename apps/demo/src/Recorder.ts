/**
 * `--record`: captures the model turns of each eval case run against a real model and stores them as the case's
 * `x-cassette`, so the offline suite replays them from then on.
 */
import { LanguageModel } from "@agentfx/core"
import type { Turn } from "@agentfx/core"
import * as FileSystem from "@effect/platform/FileSystem"
import { Effect, Layer, Stream } from "effect"
import type { YAMLMap } from "yaml"
import { isMap, isSeq, parseAllDocuments } from "yaml"
import { Cassette } from "@agentfx/tools"

/** Turns seen per key (an eval case id), in order. */
export class Recorder {
  private readonly turns = new Map<string, Array<Turn.Turn>>()

  /** Records one model turn under `key`. */
  record(key: string, turn: Turn.Turn): void {
    this.turns.set(key, [...(this.turns.get(key) ?? []), turn])
  }

  /** `inner`, with every model turn it produces recorded under `key`. */
  wrap<E, R>(key: string, inner: Layer.Layer<LanguageModel.LanguageModel, E, R>): Layer.Layer<LanguageModel.LanguageModel, E, R> {
    const record = (turn: Turn.Turn) => Effect.sync(() => this.record(key, turn))
    return Layer.effect(
      LanguageModel.LanguageModel,
      Effect.map(LanguageModel.LanguageModel, (model) => ({
        ...model,
        generate: (request) => Effect.tap(model.generate(request), (response) => record(response.turn)),
        stream: (request) => Stream.tap(model.stream(request), (part) => (part._tag === "Finish" ? record(part.response.turn) : Effect.void))
      }))
    ).pipe(Layer.provide(inner))
  }

  cassette(key: string): Cassette.Cassette | undefined {
    const turns = this.turns.get(key)
    return turns === undefined ? undefined : Cassette.fromTranscript(turns)
  }
}

/** Rewrites `x-cassette` of the cases in `file` that have a recording; returns how many it stored. */
export const storeCassettes = (file: string, recorder: Recorder): Effect.Effect<number, unknown, FileSystem.FileSystem> =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const documents = parseAllDocuments(yield* fs.readFileString(file))
    let stored = 0
    for (const document of documents) {
      if (!("contents" in document)) continue
      const root = document.contents
      const cases = isSeq(root) ? root.items : [root]
      for (const item of cases) {
        if (!isMap(item)) continue
        const id = item.get("id")
        const cassette = typeof id === "string" ? recorder.cassette(id) : undefined
        if (cassette === undefined) continue
        ;(item as YAMLMap<unknown, unknown>).set("x-cassette", document.createNode(cassette))
        stored++
      }
    }
    if (stored > 0) yield* fs.writeFileString(file, Array.from(documents, (document) => document.toString()).join(""))
    return stored
  })
