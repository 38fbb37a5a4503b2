/**
 * A reader that goes away before the output ends (`agentfx chat < questions.txt | head -5`) ends the program
 * quietly, as SIGPIPE ends a C program, and with the code a shell gives for that (128 + 13): nobody is left to
 * read what it would print. Without this, Node throws the failed write's EPIPE as an unhandled error, stack and all.
 */
export const brokenPipeCode = 141

// Stryker disable next-line ArrowFunction: it ends the process, which no test may
const exitProcess = (code: number): void => process.exit(code)

/** Ends the process with `brokenPipeCode` when `stream`'s reader has gone; any other write error is thrown as before. */
export const exitWhenReaderGoes = (stream: NodeJS.WritableStream, exit: (code: number) => void = exitProcess): void => {
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE") throw error
    exit(brokenPipeCode)
  })
}
