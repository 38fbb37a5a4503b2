import { execFileSync } from "node:child_process"
import { NodeFileSystem } from "@effect/platform-node"
import * as FileSystem from "@effect/platform/FileSystem"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as NodePath from "node:path"
import { EvalCase, Scenario } from "@agentfx/tools"
import { checkWarrantyYaml, implementations, scenarioText } from "./support/warranty.js"

const caseText = `id: c1\ninput: hello\nscenario: s\nexpected_function_calls: []\n`
const scenario = scenarioText("small", [checkWarrantyYaml])

/** A temp dir holding a FIFO, a link to /dev/zero, a directory and a file of `size` bytes, each named like an input. */
const fixture = (extension: string, text: string) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const dir = yield* fs.makeTempDirectoryScoped({ prefix: "agentfx-inputs-" })
    const at = (name: string) => NodePath.join(dir, `${name}.${extension}`)
    execFileSync("mkfifo", [at("fifo")])
    yield* fs.symlink("/dev/zero", at("zero"))
    yield* fs.makeDirectory(at("directory"))
    yield* fs.writeFileString(at("ok"), text)
    yield* fs.writeFileString(at("big"), text + " ".repeat(64))
    return { at, limit: Buffer.byteLength(text) + 63 }
  })

type Loader = (file: string, maxBytes?: number) => Effect.Effect<number, { readonly _tag: string; readonly message: string }, FileSystem.FileSystem>

const loaders: Record<string, { readonly extension: string; readonly text: string; readonly load: Loader; readonly tag: string }> = {
  "case file": {
    extension: "yaml",
    text: caseText,
    load: (file: string, maxBytes?: number) => Effect.map(EvalCase.load(file, maxBytes === undefined ? {} : { maxBytes }), (cases) => cases.length),
    tag: "EvalCaseError"
  },
  scenario: {
    extension: "md",
    text: scenario,
    load: (file: string, maxBytes?: number) => Effect.map(Scenario.load(file, implementations, maxBytes === undefined ? {} : { maxBytes }), () => 1),
    tag: "ScenarioFileError"
  }
}

describe("input files are read with a size limit, and only regular files are read at all", () => {
  for (const [kind, { extension, text, load, tag }] of Object.entries(loaders)) {
    it.scoped(`${kind}: a FIFO, /dev/zero behind a link and a directory are refused before reading, naming the file`, () =>
      Effect.gen(function* () {
        const { at } = yield* fixture(extension, text)
        const expected: ReadonlyArray<readonly [string, string]> = [
          ["fifo", "is a named pipe, not a regular file (refused before reading)"],
          ["zero", "is a device, not a regular file (refused before reading)"],
          ["directory", "is a directory, not a regular file (refused before reading)"]
        ]
        for (const [name, reason] of expected) {
          const error = yield* Effect.flip(load(at(name)))
          expect(error).toMatchObject({ _tag: tag, file: at(name), reason })
          expect(error.message).toContain(at(name))
        }
      }).pipe(Effect.provide(NodeFileSystem.layer))
    )

    it.scoped(`${kind}: a file over the limit is refused with its size; one at the limit is read`, () =>
      Effect.gen(function* () {
        const { at, limit } = yield* fixture(extension, text)
        expect(yield* load(at("ok"), limit)).toBe(1)
        const error = yield* Effect.flip(load(at("big"), limit))
        expect(error).toMatchObject({ _tag: tag, file: at("big"), reason: `is ${limit + 1} bytes, more than the limit of ${limit} bytes` })
        // The default limit reads ordinary files.
        expect(yield* load(at("big"))).toBe(1)
      }).pipe(Effect.provide(NodeFileSystem.layer))
    )
  }

  it.scoped("loadDirectory refuses a FIFO named like a case file instead of blocking on it", () =>
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const dir = yield* fs.makeTempDirectoryScoped({ prefix: "agentfx-inputs-" })
      yield* fs.writeFileString(NodePath.join(dir, "a.yaml"), caseText)
      execFileSync("mkfifo", [NodePath.join(dir, "b.yaml")])
      const error = yield* Effect.flip(EvalCase.loadDirectory(dir))
      expect(error).toMatchObject({ _tag: "EvalCaseError", file: NodePath.join(dir, "b.yaml"), reason: "is a named pipe, not a regular file (refused before reading)" })
    }).pipe(Effect.provide(NodeFileSystem.layer))
  )
})
