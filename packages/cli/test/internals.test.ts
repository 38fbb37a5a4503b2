/**
 * The command's small helpers, each on its own: the colour decision, a broken pipe, a URL for display, a file
 * system error in words, a report's output target, text made safe for a terminal. The commands' tests reach them
 * through what they print; here every branch is, on both sides.
 */
import { Io } from "@agentfx/cli"
import { BadArgument, SystemError } from "@effect/platform/Error"
import * as NodeContext from "@effect/platform-node/NodeContext"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import { EventEmitter } from "node:events"
import * as fs from "node:fs"
import * as path from "node:path"
import { exitWhenReaderGoes } from "../src/internal/brokenPipe.js"
import { enabled } from "../src/internal/color.js"
import { displayUrl } from "../src/internal/displayUrl.js"
import { durationText } from "../src/internal/durationText.js"
import * as FileProblem from "../src/internal/fileProblem.js"
import * as Output from "../src/internal/output.js"
import { escapeAll } from "../src/internal/terminalText.js"
import { tempDir } from "./support/cli.js"

describe("colour: FORCE_COLOR, then NO_COLOR, then whether stdout is a terminal", () => {
  it.each([
    [{}, true, true],
    [{}, false, false],
    [{ NO_COLOR: "1" }, true, false],
    [{ NO_COLOR: "" }, true, true],
    [{ FORCE_COLOR: "1" }, false, true],
    [{ FORCE_COLOR: "1", NO_COLOR: "1" }, false, true],
    [{ FORCE_COLOR: "0" }, true, true],
    [{ FORCE_COLOR: "0" }, false, false],
    [{ FORCE_COLOR: "false", NO_COLOR: "1" }, true, false],
    [{ FORCE_COLOR: "", NO_COLOR: "1" }, true, false],
    [{ FORCE_COLOR: "true" }, false, true]
  ] as const)("%o on a terminal: %s → %s", (env, isTTY, painted) => {
    expect(enabled(env, isTTY)).toBe(painted)
  })
})

describe("a reader that goes away", () => {
  const errorWith = (code: string) => Object.assign(new Error(code), { code })

  it("EPIPE ends the program with 141; any other write error is thrown as before", () => {
    const stream = new EventEmitter() as unknown as NodeJS.WritableStream
    const codes: Array<number> = []
    exitWhenReaderGoes(stream, (code) => codes.push(code))
    stream.emit("error", errorWith("EPIPE"))
    expect(codes).toEqual([141])
    expect(() => stream.emit("error", errorWith("EIO"))).toThrow("EIO")
    expect(codes).toEqual([141])
  })
})

describe("a URL for display", () => {
  it("no credentials, no query; the root path left out; an invalid URL said so", () => {
    expect(displayUrl("http://user:pw@host:8080/v1/x?key=secret#f")).toBe("http://host:8080/v1/x")
    expect(displayUrl("https://host/")).toBe("https://host")
    expect(displayUrl("https://host")).toBe("https://host")
    expect(displayUrl("not a url")).toBe("(an invalid URL)")
  })
})

describe("a file system error in words", () => {
  const system = (reason: SystemError["reason"], description?: string) => new SystemError({ reason, module: "FileSystem", method: "stat", pathOrDescriptor: "x", ...(description === undefined ? {} : { description }) })

  it("the system's own words when it gave some, else ours for each reason, else its description", () => {
    expect(FileProblem.describe(system("NotFound", "ENOENT: no such file or directory, stat 'x'"))).toBe("no such file or directory")
    expect(FileProblem.describe(system("Unknown", "the disk said no, really"))).toBe("the disk said no, really")
    expect(FileProblem.describe(system("Unknown"))).toBe("the file system failed")
    expect(FileProblem.describe(system("Unknown", "prefix ENOENT: not at the start"))).toBe("prefix ENOENT: not at the start")
    const ours: ReadonlyArray<readonly [SystemError["reason"], string]> = [
      ["AlreadyExists", "it already exists"],
      ["BadResource", "a part of the path is not a directory"],
      ["Busy", "it is busy"],
      ["InvalidData", "it holds invalid data"],
      ["NotFound", "no such file or directory"],
      ["PermissionDenied", "permission denied"],
      ["TimedOut", "the file system timed out"],
      ["UnexpectedEof", "it ended early"],
      ["WouldBlock", "it would block"],
      ["WriteZero", "nothing could be written"]
    ]
    for (const [reason, words] of ours) expect(FileProblem.describe(system(reason)), reason).toBe(words)
    // A bad argument (not the system's refusal) in its own words, or its message when it has none.
    expect(FileProblem.describe(new BadArgument({ module: "FileSystem", method: "stat", description: "the path is empty" }))).toBe("the path is empty")
    const bare = new BadArgument({ module: "FileSystem", method: "stat" })
    expect(FileProblem.describe(bare)).toBe(bare.message)
    expect(FileProblem.describe(bare)).not.toBe("the file system failed")
    expect(FileProblem.isNotFound(system("NotFound"))).toBe(true)
    expect(FileProblem.isNotFound(system("PermissionDenied"))).toBe(false)
  })

  it("each type of file, as a message calls it", () => {
    expect((["File", "Directory", "SymbolicLink", "BlockDevice", "CharacterDevice", "FIFO", "Socket", "Unknown"] as const).map(FileProblem.typeName)).toEqual([
      "a regular file",
      "a directory",
      "a symbolic link",
      "a device",
      "a device",
      "a named pipe",
      "a socket",
      "of an unknown type"
    ])
  })
})

describe("a report's output target", () => {
  const refusal = (targets: ReadonlyArray<Output.Target>) =>
    Effect.map(Effect.either(Output.check(targets).pipe(Effect.provide(NodeContext.layer))), (result) => (Either.isLeft(result) ? result.left.message : "accepted"))

  it.scoped("- is stdout and never checked; a new file, or a regular one, in a writable directory is accepted; anything else is refused naming why", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      fs.writeFileSync(path.join(dir, "old.json"), "{}")
      fs.mkdirSync(path.join(dir, "folder"))
      const fifo = path.join(dir, "pipe")
      yield* Effect.promise(() => import("node:child_process").then(({ execFileSync }) => execFileSync("mkfifo", [fifo])))
      const at = (name: string) => path.join(dir, name)
      expect(yield* refusal([{ option: "--report-json", path: "-" }, { option: "--junit", path: "-" }])).toBe("accepted")
      expect(yield* refusal([{ option: "--report-json", path: at("new.json") }, { option: "--junit", path: at("old.json") }])).toBe("accepted")
      expect(yield* refusal([{ option: "--junit", path: at("folder") }])).toBe(`--junit ${at("folder")}: it is a directory: name a file (in it, say)`)
      expect(yield* refusal([{ option: "--junit", path: fifo }])).toBe(`--junit ${fifo}: it is a named pipe, not a regular file (- writes to stdout)`)
      expect(yield* refusal([{ option: "--junit", path: at("missing/r.xml") }])).toBe(`--junit ${at("missing/r.xml")}: the directory ${at("missing")} does not exist`)
      expect(yield* refusal([{ option: "--junit", path: at("old.json/r.xml") }])).toBe(`--junit ${at("old.json/r.xml")}: ${at("old.json")} is not a directory`)
      // A directory that is there but refuses writing (a process's folder under /proc refuses it even to root).
      expect(yield* refusal([{ option: "--junit", path: "/proc/1/r.xml" }])).toMatch(/^--junit \/proc\/1\/r\.xml: the directory \/proc\/1 cannot be written in \(.+\)$/)
      // A file whose name the system refuses: stat fails, and not because it is missing.
      const long = at("x".repeat(300))
      expect(yield* refusal([{ option: "--junit", path: long }])).toBe(`--junit ${long}: name too long`)
      expect(yield* refusal([{ option: "--report-json", path: at("a.json") }, { option: "--junit", path: at("a.json") }])).toBe(
        `--junit ${at("a.json")}: --report-json writes the same file: give each report its own`
      )
    })
  )

  it.scoped("writeOutput: stdout ends with exactly one line break; a file is replaced whole; one that cannot be written is an OutputError naming it", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const terminal = yield* Io.memory()
      const write = (target: string, text: string) => Output.writeOutput(target, text).pipe(Effect.provide(Layer.merge(terminal.layer, NodeContext.layer)))
      yield* write("-", "one")
      yield* write("-", "two\n")
      expect(yield* terminal.stdout).toBe("one\ntwo\n")
      const file = path.join(dir, "r.json")
      fs.writeFileSync(file, "old")
      yield* write(file, "new")
      expect([fs.readFileSync(file, "utf8"), fs.readdirSync(dir)]).toEqual(["new", ["r.json"]])
      const failed = yield* Effect.flip(write(path.join(dir, "none", "r.json"), "x"))
      expect(failed.message).toBe(`${path.join(dir, "none", "r.json")} cannot be written: no such file or directory`)
    })
  )
})

describe("text from outside, made safe for a terminal", () => {
  it("names and ids on one line (a line break escaped), other text keeps its lines; keys escaped; only plain objects walked", () => {
    const escape = "\u001b[2J"
    const report = {
      id: `a\nb${escape}`,
      name: "n\n",
      functionName: "f\n",
      expectedNames: ["e\n"],
      actualNames: ["a\n"],
      file: "x\n.yaml",
      suite: "s\n",
      scenario: "c\n",
      expectedScenario: "d\n",
      path: "p\n",
      message: `two\nlines${escape}`,
      [`key${escape}`]: 1
    }
    expect(escapeAll(report)).toEqual({
      id: "a\\u000ab\\u001b[2J",
      name: "n\\u000a",
      functionName: "f\\u000a",
      expectedNames: ["e\\u000a"],
      actualNames: ["a\\u000a"],
      file: "x\\u000a.yaml",
      suite: "s\\u000a",
      scenario: "c\\u000a",
      expectedScenario: "d\\u000a",
      path: "p\\u000a",
      message: "two\nlines\\u001b[2J",
      "key\\u001b[2J": 1
    })
    const date = new Date(0)
    const made = Object.assign(Object.create({ inherited: true }) as object, { id: "x\n" })
    expect(escapeAll({ when: date, made, none: null, missing: undefined, count: 3 })).toEqual({ when: date, made, none: null, missing: undefined, count: 3 })
    expect(escapeAll({ when: date }).when).toBe(date)
  })
})

describe("durationText", () => {
  it("Duration.format's text rounded to the step, and a zero as 0ms (Duration.format writes a bare 0): a call's time and eval's elapsed time", () => {
    expect([0, 0.4, 0.5, 999.6, 1234.4].map((millis) => durationText(millis))).toEqual(["0ms", "0ms", "1ms", "1s", "1s 234ms"])
    expect([0, 49, 50, 1234, 61_260].map((millis) => durationText(millis, 100))).toEqual(["0ms", "0ms", "100ms", "1s 200ms", "1m 1s 300ms"])
  })
})
