/**
 * `--record`: captures the model turns of each eval case run against a real model and stores them as the case's
 * `x-cassette` (and the judge's verdicts on its rubrics as its `x-judge-cassette`), so the offline suite replays
 * them from then on. Only the cases whose run completed (passed or failed: the model finished, and that is what it
 * did) are stored; a run that ended in an error stopped midway, and its turns would replace a good cassette with a
 * cut-off conversation.
 */
import { LanguageModel } from "@agentfx/core"
import type { Turn } from "@agentfx/core"
import * as FileSystem from "@effect/platform/FileSystem"
import { Effect, Either, Layer, Stream } from "effect"
import type { YAMLMap } from "yaml"
import { isMap, isSeq, parseAllDocuments } from "yaml"
import { Cassette, EvalJudge } from "@agentfx/tools"
import type { EvalReport } from "@agentfx/tools"

/** The recorder's key of the judge's turn on a case's rubric (the case's own turns are under its id). */
export const judgeKey = (id: string, rubric: number): string => `${id}#judge-${rubric}`

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

/** What `storeCassettes` did with the cases of a file: the ids stored, and the others with the reason. */
export interface Stored {
  readonly stored: ReadonlyArray<string>
  readonly notStored: ReadonlyArray<{ readonly id: string; readonly reason: string }>
}

/** The case's cassette to store, or why there is none. */
const storable = (result: Pick<EvalReport.CaseResult, "status" | "error"> | undefined, cassette: unknown): Either.Either<unknown, string> => {
  if (result === undefined) return Either.left("it has no result in the report")
  if (result.status === "error") return Either.left(`the run ended in an error${result.error === undefined ? "" : ` (${result.error})`}; its cassette is left as it was`)
  return cassette === undefined ? Either.left("the model produced no turns for it") : Either.right(cassette)
}

/**
 * Rewrites `field` (`x-cassette`; a Live suite's `x-live-cassette`) of the cases in `file` whose run completed, by
 * `results` (the report's cases), with what `recorder` holds for each as it is to be written; says which cases of the
 * file were not stored and why.
 */
export const storeCassettes = (
  file: string,
  recorder: { readonly cassette: (id: string) => unknown },
  results: ReadonlyArray<Pick<EvalReport.CaseResult, "id" | "status" | "error">>,
  field: string = Cassette.field
): Effect.Effect<Stored, unknown, FileSystem.FileSystem> =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const documents = parseAllDocuments(yield* fs.readFileString(file))
    const byId = new Map(results.map((result) => [result.id, result]))
    const stored: Array<string> = []
    const notStored: Array<{ id: string; reason: string }> = []
    for (const document of documents) {
      if (!("contents" in document)) continue
      const root = document.contents
      const cases = isSeq(root) ? root.items : [root]
      for (const item of cases) {
        if (!isMap(item)) continue
        const id = item.get("id")
        if (typeof id !== "string") continue
        const cassette = storable(byId.get(id), recorder.cassette(id))
        if (Either.isLeft(cassette)) {
          notStored.push({ id, reason: cassette.left })
          continue
        }
        ;(item as YAMLMap<unknown, unknown>).set(field, document.createNode(cassette.right))
        // The judge's turns of its rubrics, in order, when it graded them all: offline they replay its verdicts.
        const rubrics = item.get("judge")
        const count = typeof rubrics === "string" ? 1 : isSeq(rubrics) ? rubrics.items.length : 0
        const verdicts = Array.from({ length: count }, (_, rubric) => {
          const judged = recorder.cassette(judgeKey(id, rubric))
          return Array.isArray(judged) ? (judged[0] as unknown) : undefined
        })
        if (count > 0 && verdicts.every((step) => step !== undefined)) (item as YAMLMap<unknown, unknown>).set(EvalJudge.cassetteField, document.createNode(verdicts))
        stored.push(id)
      }
    }
    if (stored.length > 0) yield* fs.writeFileString(file, Array.from(documents, (document) => document.toString()).join(""))
    return { stored, notStored }
  })
