// @ts-check
/**
 * A Vitest reporter for mutation runs only (vitest.mutation.config.ts): a test file that fails to load becomes one
 * failed test.
 *
 * Why: Stryker's Vitest runner (9.6.1) builds a mutant's result from the tests it collected, and a test file whose
 * import throws collects none, so a mutant that stops a module from loading — e.g. a module-level `message` helper
 * made to return nothing, which breaks every schema built with it — is reported as Survived although no test of
 * that file could even start. Known upstream (stryker-js issues 6150 and 6209); the runner has no option for it.
 * With this reporter the file's load error is a failing test, so Stryker counts such a mutant Killed, naming that
 * file and its error. A file that loaded is left alone, whether its tests passed or failed; a file that fails to
 * load in the first, unmutated run now fails that run loudly instead of quietly contributing no tests.
 *
 * Stryker reads `file.tasks` after the run, and the reporter sees the same file objects when the run finishes.
 */

/** @typedef {import("vitest").RunnerTestFile} TestFile */
/** @typedef {import("vitest").RunnerTestSuite} TestSuite */
/** @typedef {import("vitest").RunnerTask} Task */

/** @type {(task: Task) => boolean} */
const holdsTest = (task) => task.type === "test" || (task.type === "suite" && task.tasks.some(holdsTest))

/**
 * The failed test that stands for a file that did not load.
 * @param {TestFile} file
 * @returns {Task}
 */
const loadFailure = (file) =>
  /** @type {Task} */ (
    /** @type {unknown} */ ({
      type: "test",
      id: `${file.id}_load`,
      name: "the test file loads",
      mode: "run",
      file,
      suite: undefined,
      meta: {},
      annotations: [],
      timeout: 0,
      result: { state: "fail", duration: file.result?.duration ?? 0, errors: file.result?.errors ?? [] }
    })
  )

/** @type {import("vitest/node").Reporter} */
export const unloadableFileAsFailedTest = {
  onFinished(files) {
    for (const file of files ?? []) {
      if (file.result?.state === "fail" && !file.tasks.some(holdsTest)) file.tasks.push(loadFailure(file))
    }
  }
}
