/**
 * A file system error in the few words a person reads, for a message that names the file already: "no such file
 * or directory", "permission denied" — not the platform's `NotFound: FileSystem.stat (x.md): ENOENT: no such file
 * or directory, stat 'x.md'`, which says the same three times in a programmer's words.
 */
import type { PlatformError } from "@effect/platform/Error"
import type * as FileSystem from "@effect/platform/FileSystem"

const reasons: Readonly<Record<string, string>> = {
  AlreadyExists: "it already exists",
  BadResource: "a part of the path is not a directory",
  Busy: "it is busy",
  InvalidData: "it holds invalid data",
  NotFound: "no such file or directory",
  PermissionDenied: "permission denied",
  TimedOut: "the file system timed out",
  UnexpectedEof: "it ended early",
  WouldBlock: "it would block",
  WriteZero: "nothing could be written"
}

/** What went wrong, in words: the system's own (`no such file or directory`) when it gave some. */
export const describe = (error: PlatformError): string => {
  // Node's messages read "ENOENT: no such file or directory, stat 'x.md'": the words between the code and the call.
  // Stryker disable next-line StringLiteral: no other text read in place of a missing description starts with a code and a colon either
  const words = /^[A-Z0-9]+: ([^,]+)/.exec(error.description ?? "")?.[1]
  if (words !== undefined) return words
  if (error._tag === "SystemError") return reasons[error.reason] ?? error.description ?? "the file system failed"
  return error.description ?? error.message
}

/** Whether the error says the file is not there. */
// Stryker disable next-line ConditionalExpression: only a SystemError has a reason; a BadArgument's is undefined, never "NotFound"
export const isNotFound = (error: PlatformError): boolean => error._tag === "SystemError" && error.reason === "NotFound"

const typeNames: Record<FileSystem.File.Type, string> = {
  File: "a regular file",
  Directory: "a directory",
  SymbolicLink: "a symbolic link",
  BlockDevice: "a device",
  CharacterDevice: "a device",
  FIFO: "a named pipe",
  Socket: "a socket",
  Unknown: "of an unknown type"
}

/** What a message calls a type of file: "a named pipe", "a device". */
export const typeName = (type: FileSystem.File.Type): string => typeNames[type]
