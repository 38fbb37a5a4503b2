import * as fs from "node:fs"

/**
 * The ids of the running processes whose command line contains `mark` (read from /proc: the suite runs on Linux). A
 * zombie has an empty command line: a process that has exited is not counted, reaped or not. (The tools package's
 * MCP tests have the same helper; test supports are not shared across packages.)
 */
export const processesWith = (mark: string): ReadonlyArray<string> =>
  fs.readdirSync("/proc").filter((entry) => {
    if (!/^\d+$/.test(entry)) return false
    try {
      return fs.readFileSync(`/proc/${entry}/cmdline`, "utf8").includes(mark)
    } catch {
      return false // gone while the list was read
    }
  })
