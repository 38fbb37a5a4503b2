import { Io } from "@agentfx/cli"
import { Policy } from "@agentfx/emulator"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Builtins from "../src/Builtins.js"
import { agentfx, count, emulator, tempDir, viaGemini, writeFiles } from "./support/cli.js"
import { everythingBin, filesystemBin } from "./support/everything.js"
import { mcpHttpServer } from "./support/mcpHttp.js"

/**
 * A small MCP server over stdio, as one command line: a `shout` tool its server marks read-only and closed-world, and
 * a `read_file` that clashes with ours, with no annotations (so it asks before each call).
 */
const program = [
  'const rl = require("node:readline").createInterface({ input: process.stdin });',
  'const reply = (id, result) => process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id, result }) + String.fromCharCode(10));',
  'rl.on("line", (line) => { const m = JSON.parse(line);',
  'if (m.method === "initialize") reply(m.id, { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "shouter", version: "1" } });',
  'else if (m.method === "tools/list") reply(m.id, { tools: [',
  '{ name: "shout", description: "Shouts a word", inputSchema: { type: "object", properties: { word: { type: "string" } }, required: ["word"] }, annotations: { readOnlyHint: true, openWorldHint: false } },',
  '{ name: "read_file", description: "Another read_file", inputSchema: { type: "object" } } ] });',
  'else if (m.method === "tools/call") reply(m.id, { content: [{ type: "text", text: String(m.params.arguments.word).toUpperCase() + "!" }] }); });'
].join(" ")

/** The server as `--mcp` takes it: one command line, the program quoted. */
const serverLine = `${JSON.stringify(process.execPath)} -e ${JSON.stringify(program)}`

describe("agentfx with MCP servers", () => {
  it.live("issue 35 item 5: tools --mcp lists the server's tools beside the built-in ones, each saying its server, why a name was prefixed, and whether it asks", () =>
    Effect.gen(function* () {
      const result = yield* agentfx(["tools", "--json", "--mcp", serverLine])
      expect(result.stderr).toBe("")
      expect(result.code).toBe(0)
      const entries = JSON.parse(result.stdout) as Array<{ name: string; availability: string }>
      expect(entries.map((entry) => entry.name)).toEqual([...Builtins.names, "shout", "node_read_file"])
      expect(entries.slice(-2).map((entry) => entry.availability)).toEqual([
        "from the MCP server node; runs without asking: its server marks it read-only or non-destructive, and closed-world",
        `from the MCP server node (its tool "read_file", prefixed with its server's name: another tool is named read_file); asks for approval before each call unless --yes: its server does not mark it read-only or non-destructive; its server does not mark it closed-world`
      ])
    }))

  it.scopedLive("issue 35 item 5: run --mcp says on stderr which server a prefixed tool came from and why its name was prefixed", () =>
    Effect.gen(function* () {
      const server = yield* emulator({ policy: Policy.script([{ text: "Hello." }]) })
      const { env, flags } = viaGemini(server)
      const result = yield* agentfx(["run", ...flags, "--mcp", serverLine, "--json", "hi"], { env })
      expect(result.code).toBe(0)
      expect(result.stderr).toContain(
        `MCP server node: its tool "read_file" is offered as node_read_file (prefixed with its server's name: another tool is named read_file)\n`
      )
      // Only the renamed tool is noted.
      expect(result.stderr.split("\n").filter((line) => line.startsWith("MCP server"))).toEqual([
        `MCP server node: its tool "read_file" is offered as node_read_file (prefixed with its server's name: another tool is named read_file)`
      ])
      expect(result.stderr).not.toContain("shout")
    }))

  it.scopedLive("run --mcp: the model calls the server's tool and hears its answer", () =>
    Effect.gen(function* () {
      const server = yield* emulator({ policy: Policy.script([{ calls: [{ name: "shout", args: { word: "hello" } }] }, { text: "It shouted." }]) })
      const { env, flags } = viaGemini(server)
      const result = yield* agentfx(["run", ...flags, "--mcp", serverLine, "--json", "shout hello"], { env })
      expect(result.code).toBe(0)
      const json = JSON.parse(result.stdout) as { text: string; calls: Array<{ name: string; response: unknown }> }
      expect(json.text).toBe("It shouted.")
      expect(json.calls).toEqual([expect.objectContaining({ name: "shout", response: { output: "HELLO!" } })])
      const declared = JSON.stringify((yield* server.requests)[0]!.body)
      expect(declared).toContain('"shout"')
    }))

  it.scopedLive("issue 35 item 4: run --mcp-max-bytes: a result past the bound is a tool error naming the server, the tool and the size, never the result; the run goes on", () =>
    Effect.gen(function* () {
      // `shout` answers 2 MiB of "A": past the bound of 1 MiB, whatever the word.
      const big = program.replace(`String(m.params.arguments.word).toUpperCase() + "!"`, `"A".repeat(2 * 1024 * 1024)`)
      expect(big).not.toBe(program)
      const server = yield* emulator({ policy: Policy.script([{ calls: [{ name: "shout", args: { word: "hello" } }] }, { text: "Too big." }]) })
      const { env, flags } = viaGemini(server)
      const result = yield* agentfx(["run", ...flags, "--mcp", `${JSON.stringify(process.execPath)} -e ${JSON.stringify(big)}`, "--mcp-max-bytes", "1MiB", "--json", "shout"], { env })
      expect(result.code).toBe(0)
      expect(result.stdout).not.toContain("AAAA")
      const json = JSON.parse(result.stdout) as { text: string; calls: Array<{ name: string; isError: boolean; response: unknown }> }
      expect(json.text).toBe("Too big.")
      expect(json.calls).toEqual([
        expect.objectContaining({
          name: "shout",
          isError: true,
          response: {
            error: {
              type: "ExecutionFailed",
              message: `"shout" failed: the result of "shout" from the MCP server node is 2.0 MiB, more than the 1 MiB one message may hold: it was not read, and the server goes on serving`,
              details: {
                type: "McpResultTooLarge",
                message: `the result of "shout" from the MCP server node is 2.0 MiB, more than the 1 MiB one message may hold: it was not read, and the server goes on serving`
              }
            }
          }
        })
      ])
    }))

  it.effect("--mcp-max-bytes must be a size", () =>
    Effect.gen(function* () {
      const result = yield* agentfx(["run", "--mcp-max-bytes", "lots", "hello"])
      expect(result.code).toBe(2)
      expect(result.stderr).toContain("--mcp-max-bytes")
    }))

  it.live("a server that cannot start stops the command before anything runs: one line naming it, exit 2", () =>
    Effect.gen(function* () {
      const result = yield* agentfx(["run", "--mcp", `${JSON.stringify(process.execPath)} -e "console.error('missing config'); process.exit(4)"`, "hello"])
      expect(result.code).toBe(2)
      expect(result.stderr).toContain("MCP server")
      expect(result.stderr).toContain("missing config")
    }))

  it.live("issue 35 item 12: --mcp with an unclosed quote is refused, naming the line, before anything runs: exit 2", () =>
    Effect.gen(function* () {
      const result = yield* agentfx(["run", "--mcp", "node 'abc", "hello"])
      expect(result.code).toBe(2)
      expect(result.stdout).toBe("")
      expect(result.stderr).toBe(`agentfx: MCP server node: its command line "node 'abc" cannot be run: it has an unclosed single quote ('); close it, or escape it with a backslash\n`)
    }))

  it.effect("--mcp-tools without a server to be for stops the command: exit 2", () =>
    Effect.gen(function* () {
      const result = yield* agentfx(["tools", "--mcp-tools", "shout"])
      expect([result.code, result.stdout, result.stderr]).toEqual([2, "", "agentfx: --mcp-tools names no server, and there are no MCP servers it could be for\n"])
    }))

  it.scopedLive("with several servers every tool is prefixed with its server's name, and no rename is noted", () =>
    Effect.gen(function* () {
      const http = yield* mcpHttpServer({ tools: [{ name: "read_file", inputSchema: { type: "object" } }] })
      const server = yield* emulator({ policy: Policy.script([{ text: "Hello." }]) })
      const { env, flags } = viaGemini(server)
      const result = yield* agentfx(["run", ...flags, "--mcp", serverLine, "--mcp-url", http.url, "--json", "hi"], { env })
      expect(result.code).toBe(0)
      expect(result.stderr).not.toContain("is offered as")
      const declared = JSON.stringify((yield* server.requests)[0]!.body)
      expect(declared).toContain('"node_read_file"')
    }))

  it.effect("--mcp-url must be an http(s) URL", () =>
    Effect.gen(function* () {
      const result = yield* agentfx(["run", "--mcp-url", "ftp://example.com", "hello"])
      expect(result.code).toBe(2)
      expect(result.stderr).toContain("--mcp-url")
    }))
})

describe("issue 35 item 5: MCP tools ask as the built-in ones do, by what their server says of them", () => {
  /** server-filesystem on a fresh folder holding `a.txt`, and the command line that starts it. */
  const filesystem = Effect.map(tempDir, (dir) => {
    fs.writeFileSync(path.join(dir, "a.txt"), "hello\n")
    return { dir, line: `${JSON.stringify(process.execPath)} ${JSON.stringify(filesystemBin)} ${JSON.stringify(dir)}` }
  })

  /** A model that moves a.txt to b.txt, reads what is there, then says it is done. */
  const mover = (dir: string) =>
    Policy.script([
      { calls: [{ name: "move_file", args: { source: path.join(dir, "a.txt"), destination: path.join(dir, "b.txt") } }] },
      { calls: [{ name: "list_directory", args: { path: dir } }] },
      { text: "Done." }
    ])

  it.scopedLive("run --json: server-filesystem's move_file (destructiveHint) is refused without --yes and nothing moves; its read-only list_directory runs; with --yes the file moves", () =>
    Effect.gen(function* () {
      const { dir, line } = yield* filesystem
      const refusing = yield* emulator({ policy: mover(dir) })
      const { env, flags } = viaGemini(refusing)
      const refused = yield* agentfx(["run", ...flags, "--mcp", line, "--json", "tidy up"], { env })
      expect(refused.code).toBe(0)
      const calls = (JSON.parse(refused.stdout) as { calls: Array<{ name: string; isError: boolean; response: { error?: { type: string; reason?: string } } }> }).calls
      expect(calls.map((call) => [call.name, call.isError, call.response.error?.type])).toEqual([
        ["move_file", true, "ApprovalDenied"],
        ["list_directory", false, undefined]
      ])
      expect(calls[0]!.response.error!.reason).toBe("agentfx run --json does not ask for approval: pass --yes to allow tools that need it")
      expect(fs.readdirSync(dir)).toEqual(["a.txt"])
      const approving = yield* emulator({ policy: mover(dir) })
      const approved = yield* agentfx(["run", ...viaGemini(approving).flags, "--mcp", line, "--json", "--yes", "tidy up"], { env: viaGemini(approving).env })
      expect(approved.code).toBe(0)
      expect(fs.readdirSync(dir)).toEqual(["b.txt"])
    }))

  it.scopedLive("run on a terminal asks before move_file, as before fetch_url; n refuses it and the model is told", () =>
    Effect.gen(function* () {
      const { dir, line } = yield* filesystem
      const server = yield* emulator({ policy: mover(dir) })
      const { env, flags } = viaGemini(server)
      const terminal = yield* Io.memory()
      const run = yield* Effect.fork(agentfx(["run", ...flags, "--mcp", line, "tidy up"], { env, terminal }))
      yield* terminal.waitForOutput((out) => out.includes("— allow? [y/N] "))
      expect(yield* terminal.stdout).toContain("→ move_file(")
      yield* terminal.feed("n")
      const result = yield* Fiber.join(run)
      expect(result.code).toBe(0)
      expect(result.stdout).toContain(`— allow? [y/N] n\n← move_file failed: "move_file" was not approved: the user refused it in the terminal`)
      // list_directory did not ask.
      expect(count(result.stdout, "allow?")).toBe(1)
      expect(fs.readdirSync(dir)).toEqual(["a.txt"])
    }))

  it.scopedLive("--mcp-tools offers only the tools it lists, for the server it names; a tool the server lacks, or a list for no server, stops the command: exit 2", () =>
    Effect.gen(function* () {
      const http = yield* mcpHttpServer({ tools: [{ name: "ping", inputSchema: { type: "object" } }, { name: "pong", inputSchema: { type: "object" } }] })
      const names = (result: { stdout: string }) => (JSON.parse(result.stdout) as Array<{ name: string }>).map((entry) => entry.name).filter((name) => !Builtins.names.includes(name))
      const one = yield* agentfx(["tools", "--json", "--mcp", serverLine, "--mcp-tools", "shout"])
      expect(one.code).toBe(0)
      expect(names(one)).toEqual(["shout"])
      const two = yield* agentfx(["tools", "--json", "--mcp", serverLine, "--mcp-url", http.url, "--mcp-tools", `${http.host}=pong`, "--mcp-tools", "node=read_file"])
      expect(two.code).toBe(0)
      // A name must start with a letter or _: the host's prefix makes it start with a digit, so it is made safe.
      expect(names(two)).toEqual(["node_read_file", `_${http.host.replace(/[.:]/g, "_")}_pong`])
      const lacking = yield* agentfx(["tools", "--mcp", serverLine, "--mcp-tools", "whisper"])
      expect([lacking.code, lacking.stderr]).toEqual([2, `agentfx: MCP server node: offers no tool "whisper" (it offers: shout, read_file)\n`])
      const unnamed = yield* agentfx(["tools", "--mcp", serverLine, "--mcp-url", http.url, "--mcp-tools", "shout"])
      expect([unnamed.code, unnamed.stderr]).toEqual([2, `agentfx: --mcp-tools names no server, and there are 2 MCP servers (node, ${http.host}): give it as SERVER=…\n`])
    }))
})

describe("issue 35 item 18: --mcp-url servers that refuse, and the headers they need", () => {
  it.scopedLive("a 404 page in HTML: one line naming the server, the status and what the page says, exit 2", () =>
    Effect.gen(function* () {
      const page = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>Error</title>\n</head>\n<body>\n<pre>Cannot POST /mcp</pre>\n</body>\n</html>\n"
      const server = yield* mcpHttpServer({ gate: (_, response) => (response.writeHead(404, { "content-type": "text/html; charset=utf-8" }).end(page), true) })
      const result = yield* agentfx(["tools", "--mcp-url", server.url])
      expect(result.code).toBe(2)
      expect(result.stdout).toBe("")
      expect(result.stderr).toBe(
        `agentfx: MCP server ${server.host}: did not start: Streamable HTTP error: Error POSTing to endpoint: an HTML page: Cannot POST /mcp (HTTP 404)\n`
      )
    }))

  it.scopedLive("--mcp-header is sent with every request to its server, and only to it; the value is never printed", () =>
    Effect.gen(function* () {
      const refuseWithout = (token: string) => (request: { headers: Record<string, unknown> }, response: { writeHead: (status: number) => { end: (text: string) => void } }) =>
        request.headers.authorization === `Bearer ${token}` ? false : (response.writeHead(401).end("who are you?"), true)
      const first = yield* mcpHttpServer({ gate: refuseWithout("SECRET-1") })
      const second = yield* mcpHttpServer({ tools: [{ name: "pong", inputSchema: { type: "object" } }], gate: refuseWithout("SECRET-2") })
      const one = yield* agentfx(["tools", "--json", "--mcp-url", first.url, "--mcp-header", "Authorization: Bearer SECRET-1"])
      expect(one.code).toBe(0)
      expect((JSON.parse(one.stdout) as Array<{ name: string }>).map((entry) => entry.name)).toContain("ping")
      const before = { first: first.seen.length, second: second.seen.length }
      const both = yield* agentfx([
        "tools",
        "--json",
        "--mcp-url",
        first.url,
        "--mcp-url",
        second.url,
        "--mcp-header",
        `${second.host}=Authorization: Bearer SECRET-2`,
        "--mcp-header",
        `${first.host}=Authorization: Bearer SECRET-1`,
        "--mcp-header",
        `${first.host}=X-Team: blue`
      ])
      expect(both.code).toBe(0)
      expect(both.stderr).toBe("")
      const posts = (seen: ReadonlyArray<{ method: string; headers: Record<string, unknown> }>, from: number) => seen.slice(from).filter((request) => request.method === "POST")
      expect(posts(first.seen, before.first).map((request) => [request.headers.authorization, request.headers["x-team"]])).toEqual(
        posts(first.seen, before.first).map(() => ["Bearer SECRET-1", "blue"])
      )
      expect(posts(second.seen, before.second).map((request) => [request.headers.authorization, request.headers["x-team"]])).toEqual(
        posts(second.seen, before.second).map(() => ["Bearer SECRET-2", undefined])
      )
      expect(posts(second.seen, before.second).length).toBeGreaterThan(1)
      // Without its header, the server's refusal is said, and no header value is.
      const refused = yield* agentfx(["tools", "--mcp-url", first.url, "--mcp-url", second.url, "--mcp-header", `${first.host}=Authorization: Bearer SECRET-1`])
      expect(refused.code).toBe(2)
      expect(refused.stderr).toContain(`MCP server ${second.host}: did not start`)
      expect(refused.stderr).toContain("who are you? (HTTP 401)")
      expect(refused.stderr).not.toContain("SECRET")
    }))

  it.scopedLive("a header for no server, for one of several without naming it, or given twice, and a URL with credentials, are refused: exit 2", () =>
    Effect.gen(function* () {
      const server = yield* mcpHttpServer()
      const other = yield* mcpHttpServer()
      const run = (...args: ReadonlyArray<string>) => Effect.map(agentfx(["tools", ...args]), (result) => [result.code, result.stderr])
      expect(yield* run("--mcp-header", "Authorization: Bearer SECRET")).toEqual([2, "agentfx: --mcp-header names no server, and there are no --mcp-url servers it could be for\n"])
      expect(yield* run("--mcp-url", server.url, "--mcp-url", other.url, "--mcp-header", "Authorization: Bearer SECRET")).toEqual([
        2,
        `agentfx: --mcp-header names no server, and there are 2 --mcp-url servers (${server.host}, ${other.host}): give it as SERVER=…\n`
      ])
      expect(yield* run("--mcp-url", server.url, "--mcp-header", "elsewhere:1=Authorization: Bearer SECRET")).toEqual([
        2,
        `agentfx: --mcp-header is for "elsewhere:1", which is none of the --mcp-url servers (${server.host})\n`
      ])
      expect(yield* run("--mcp-url", server.url, "--mcp-header", "Authorization: a", "--mcp-header", "authorization: b")).toEqual([
        2,
        `agentfx: --mcp-header gives authorization twice for ${server.host}\n`
      ])
      const [badCode, badHeader] = yield* run("--mcp-url", server.url, "--mcp-header", "Bearer SECRET")
      expect(badCode).toBe(2)
      expect(badHeader).toBe('agentfx: --mcp-header: a header is "Name: value" (e.g. "Authorization: Bearer TOKEN"), or "SERVER=Name: value" for one of several servers\n')
      expect(badHeader).not.toContain("SECRET")
      const [code, stderr] = yield* run("--mcp-url", "http://me:SECRET@127.0.0.1:9/mcp")
      expect(code).toBe(2)
      expect(stderr).toContain('send credentials with --mcp-header, e.g. --mcp-header "Authorization: Bearer TOKEN"')
      expect(stderr).not.toContain("SECRET")
    }))
})

const scenarioFile = `---
name: echoer
description: Echoes through an MCP server, computes with a built-in tool
available_functions:
  - name: calculator
    description: Evaluates an arithmetic expression
    parameters: { type: object, properties: { expression: { type: string } }, required: [expression] }
mcp:
  - name: everything
    command: ${JSON.stringify(process.execPath)}
    args: [${JSON.stringify(everythingBin)}, stdio]
    tools: [echo]
---
Echo what the user says.
`

describe("agentfx run --scenario", () => {
  it.scopedLive("the scenario's instructions and functions, with its MCP server's listed tool, started first", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      writeFiles(dir, { "echoer.md": scenarioFile })
      const server = yield* emulator({ policy: Policy.script([{ calls: [{ name: "echo", args: { message: "hi" } }] }, { text: "It echoed." }]) })
      const { env, flags } = viaGemini(server)
      const result = yield* agentfx(["run", ...flags, "--scenario", path.join(dir, "echoer.md"), "--allow-scenario-commands", "--json", "echo hi"], { env })
      expect(result.code).toBe(0)
      const json = JSON.parse(result.stdout) as { text: string; calls: Array<{ name: string; response: unknown }> }
      expect(json.calls).toEqual([expect.objectContaining({ name: "echo", response: { output: "Echo: hi" } })])
      const body = (yield* server.requests)[0]!.body as { systemInstruction?: unknown; tools?: Array<{ functionDeclarations?: Array<{ name: string }> }> }
      expect(JSON.stringify(body.systemInstruction)).toContain("Echo what the user says.")
      expect(body.tools?.flatMap((tool) => tool.functionDeclarations ?? []).map((declaration) => declaration.name)).toEqual(["calculator", "echo"])
    }))

  it.scopedLive("issue 35 item 17: run --json does not start a scenario's program without --allow-scenario-commands: exit 2 naming the scenario and the command", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const marker = path.join(dir, "started")
      writeFiles(dir, { "marking.md": `---\nname: marking\ndescription: d\navailable_functions: []\nmcp:\n  - name: marker\n    command: node -e 'require("node:fs").writeFileSync(${JSON.stringify(marker)}, "")'\n---\nHi.\n` })
      const result = yield* agentfx(["run", "--scenario", path.join(dir, "marking.md"), "--json", "hi"])
      expect(result.code).toBe(2)
      expect(result.stdout).toBe("")
      expect(result.stderr).toBe(
        `agentfx: scenario "marking" would start a program as an MCP server (marker: node -e 'require("node:fs").writeFileSync(${JSON.stringify(marker)}, "")', at ${path.join(dir, "marking.md")}:6): nobody is asked here; pass --allow-scenario-commands to let scenario files start programs (they run with your rights)\n`
      )
      expect(fs.existsSync(marker)).toBe(false)
    }))

  for (const [answer, started] of [["y", true], ["n", false]] as const) {
    it.scopedLive(`issue 35 item 17: run on a terminal asks before a scenario's program starts, showing it; "${answer}" ${started ? "starts it" : "stops the command: exit 2"}`, () =>
      Effect.gen(function* () {
        const dir = yield* tempDir
        writeFiles(dir, { "echoer.md": scenarioFile })
        const server = yield* emulator({ policy: Policy.script([{ text: "Hi." }]) })
        const { env, flags } = viaGemini(server)
        const terminal = yield* Io.memory()
        const run = yield* Effect.fork(agentfx(["run", ...flags, "--scenario", path.join(dir, "echoer.md"), "hi"], { env, terminal }))
        yield* terminal.waitForOutput((out) => out.includes("Start it? [y/N] "))
        expect(yield* terminal.stderr).toBe(
          `scenario "echoer" (${path.join(dir, "echoer.md")}) starts this program as an MCP server, in ${dir}:\n  everything: ${process.execPath} ${everythingBin} stdio\n`
        )
        yield* terminal.feed(answer)
        const result = yield* Fiber.join(run)
        expect(result.code).toBe(started ? 0 : 2)
        expect(result.stdout).toContain(started ? "Hi." : "Start it? [y/N] n")
        if (!started) expect(result.stderr).toContain(`agentfx: scenario "echoer" would start a program as an MCP server (everything: ${process.execPath} ${everythingBin} stdio, at ${path.join(dir, "echoer.md")}:9): you did not answer yes;`)
      }))
  }

  it.scopedLive("issue 35 item 17: chat asks too, and an input that ends before the answer starts nothing: exit 2", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const marker = path.join(dir, "started")
      writeFiles(dir, { "marking.md": `---\nname: marking\ndescription: d\navailable_functions: []\nmcp:\n  - name: marker\n    command: node -e 'require("node:fs").writeFileSync(${JSON.stringify(marker)}, "")'\n---\nHi.\n` })
      const result = yield* agentfx(["chat", "--scenario", path.join(dir, "marking.md")])
      expect(result.code).toBe(2)
      expect(result.stdout).toContain("Start it? [y/N] ")
      expect(result.stderr).toContain("nobody could answer (the input ended); pass --allow-scenario-commands")
      expect(fs.existsSync(marker)).toBe(false)
    }))

  it.scopedLive("a scenario's server that refuses to start stops the command: exit 2, naming the file, the line and the server", () =>
    Effect.gen(function* () {
      const http = yield* mcpHttpServer({ gate: (_, response) => (response.writeHead(401).end("who are you?"), true) })
      const dir = yield* tempDir
      writeFiles(dir, { "remote.md": `---\nname: remote\ndescription: d\navailable_functions: []\nmcp:\n  - name: remote\n    url: ${http.url}\n---\nHi.\n` })
      const result = yield* agentfx(["run", "--scenario", path.join(dir, "remote.md"), "--json", "hi"])
      expect([result.code, result.stdout]).toEqual([2, ""])
      expect(result.stderr).toMatch(new RegExp(`^agentfx: ${path.join(dir, "remote.md")}:6: MCP server remote: did not start: .*who are you\\? \\(HTTP 401\\)\n$`))
    }))

  it.scopedLive("a scenario function that is not built in, or --mcp beside --scenario, stops the command: exit 2", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      writeFiles(dir, { "echoer.md": scenarioFile, "other.md": scenarioFile.replace("name: calculator", "name: launch") })
      const missing = yield* agentfx(["run", "--scenario", path.join(dir, "other.md"), "hello"])
      expect(missing.code).toBe(2)
      expect(missing.stderr).toContain(`scenario "echoer" declares function "launch", which has no registered implementation`)
      const both = yield* agentfx(["run", "--scenario", path.join(dir, "echoer.md"), "--mcp", "node server.js", "hello"])
      expect(both.code).toBe(2)
      expect(both.stderr).toContain("--scenario names its own MCP servers")
    }))
})

/** A scenario with a built-in function and two that are not: a live session answers those only from --mocks. */
const homeScenario = `---
name: home
description: A lamp and a fan
available_functions:
  - name: calculator
    description: Evaluates an arithmetic expression
    parameters: { type: object, properties: { expression: { type: string } }, required: [expression] }
  - name: lamp
    description: Reads the lamp
    parameters: { type: object, properties: {} }
  - name: fan
    description: Reads the fan
    parameters: { type: object, properties: {} }
---
Answer about the home.
`

describe("agentfx live --scenario --mocks", () => {
  it.scopedLive("a function neither built in nor mocked, a mock for a function the scenario lacks, and --mocks alone are usage errors (exit 2) naming the file", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      writeFiles(dir, {
        "home.md": homeScenario,
        "bare.md": "---\nname: bare\ndescription: d\navailable_functions: []\n---\nHi.\n",
        "lamp.yaml": "lamp:\n  response: { on: true }\n",
        "extra.yaml": "lamp:\n  response: {}\nfan:\n  response: {}\ngarage:\n  response: {}\nshed:\n  response: {}\n"
      })
      const at = (...names: ReadonlyArray<string>) => path.join(dir, ...names)
      const live = (...args: ReadonlyArray<string>) => Effect.map(agentfx(["live", ...args]), (result) => [result.code, result.stdout, result.stderr])
      const unmocked = `agentfx: ${at("home.md")}:8: scenario "home" declares function "lamp", which is not a built-in tool (${Builtins.names.join(", ")}): `
      expect(yield* live("--scenario", at("home.md"))).toEqual([2, "", `${unmocked}give its responses with --mocks FILE\n`])
      expect(yield* live("--scenario", at("home.md"), "--mocks", at("lamp.yaml"))).toEqual([
        2,
        "",
        `agentfx: ${at("home.md")}:11: scenario "home" declares function "fan", which is not a built-in tool (${Builtins.names.join(", ")}): give its responses in ${at("lamp.yaml")}\n`
      ])
      expect(yield* live("--scenario", at("home.md"), "--mocks", at("extra.yaml"))).toEqual([
        2,
        "",
        `agentfx: ${at("extra.yaml")}: mocks "garage", "shed", which scenario "home" does not declare (it declares: calculator, lamp, fan)\n`
      ])
      expect(yield* live("--scenario", at("bare.md"), "--mocks", at("lamp.yaml"))).toEqual([
        2,
        "",
        `agentfx: ${at("lamp.yaml")}: mocks "lamp", which scenario "bare" does not declare (it declares: nothing)\n`
      ])
      expect(yield* live("--mocks", at("lamp.yaml"))).toEqual([2, "", "agentfx: --mocks answers a scenario's functions: give --scenario FILE with it\n"])
      // run takes no --mocks: its functions must be built in.
      const run = yield* agentfx(["run", "--scenario", at("home.md"), "hi"])
      expect([run.code, run.stderr]).toEqual([2, expect.stringContaining(`scenario "home" declares function "lamp", which has no registered implementation`)])
    }))

  it.scopedLive("the mocked functions answer as the file says, a built-in one too; the scenario's instructions are the session's", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      writeFiles(dir, { "home.md": homeScenario, "mocks.yaml": "lamp:\n  response: { on: true }\nfan:\n  response: { speed: 2 }\ncalculator:\n  response: { result: 42 }\n" })
      const server = yield* emulator({
        policy: Policy.script([{ calls: [{ name: "lamp", args: {} }, { name: "calculator", args: { expression: "1 + 1" } }] }, { text: "The lamp is on." }])
      })
      const { env, flags } = viaGemini(server)
      const terminal = yield* Io.memory()
      const fiber = yield* Effect.fork(agentfx(["live", ...flags, "--yes", "--scenario", path.join(dir, "home.md"), "--mocks", path.join(dir, "mocks.yaml")], { env, terminal }))
      yield* terminal.waitForOutput((out) => count(out, "you> ") >= 1)
      yield* terminal.feed("is the lamp on?")
      yield* terminal.waitForOutput((out) => count(out, "you> ") >= 2)
      yield* terminal.feed("/exit")
      const result = yield* Fiber.join(fiber)
      expect(result.code).toBe(0)
      expect(result.stdout).toContain('← lamp: {"on":true}')
      expect(result.stdout).toContain('← calculator: {"result":42}')
      expect(result.stdout).toContain("The lamp is on.")
      const [record] = yield* server.live
      expect(JSON.stringify(record)).toContain("Answer about the home.")
    }))
})
