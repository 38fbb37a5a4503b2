/**
 * Opening a checked path without a window between the check and the open. A path is checked by its real
 * location; by the time it is opened, any of its components may have been swapped for a symbolic link leading
 * out. So the path is opened once, never following a link in its last component, and the open descriptor is
 * verified: on Linux by the kernel's own name for it (`/proc/self/fd/N`), elsewhere by its device and inode
 * against a no-follow `lstat` of the checked path. Everything after that reads through the descriptor.
 */
import { constants, type Stats } from "node:fs"
import * as NodeFs from "node:fs/promises"
import * as NodePath from "node:path"

/** Whether `real` is `root` or lies under it (both absolute real paths). */
export const isInside = (root: string, real: string): boolean =>
  real === root || real.startsWith(root.endsWith(NodePath.sep) ? root : root + NodePath.sep)

/** Why an open was refused, for the caller to turn into its own typed error. */
export type OpenFailure =
  | { readonly _tag: "Escaped" }
  | { readonly _tag: "Missing" }
  | { readonly _tag: "WrongType"; readonly actual: Stats }
  | { readonly _tag: "Failed"; readonly code: string; readonly message: string }

export interface Opened {
  readonly handle: NodeFs.FileHandle
  readonly stats: Stats
  /** A path that names the opened object itself (on Linux, through the descriptor), for `readdir`/`lstat`. */
  readonly self: string
}

const procSelf = (fd: number) => `/proc/self/fd/${fd}`

const errno = (error: unknown): { code: string; message: string } => {
  const code = typeof error === "object" && error !== null && "code" in error ? String((error as { code: unknown }).code) : "EUNKNOWN"
  return { code, message: code === "EACCES" || code === "EPERM" ? "permission denied" : error instanceof Error ? error.message : String(error) }
}

/** The kernel's name for an open descriptor (Linux), or `undefined` where the platform has none. */
export const kernelName = (fd: number): Promise<string | undefined> =>
  NodeFs.readlink(procSelf(fd)).then(
    (name) => (name.startsWith("/") ? name : undefined),
    () => undefined
  )

const sameObject = (a: Stats, b: Stats) => a.dev === b.dev && a.ino === b.ino

/**
 * Opens `real` (a real path already checked to lie under `root`) as a regular file or a directory, refusing
 * a symbolic link swapped in anywhere along the path since the check. Never blocks on a FIFO or a device:
 * their type is seen before any read. `nameOf` gives the kernel's name for a descriptor (tests give none, to
 * check the portable verification on Linux too).
 */
export const openInside = async (
  root: string,
  real: string,
  kind: "file" | "directory",
  nameOf: (fd: number) => Promise<string | undefined> = kernelName
): Promise<Opened | OpenFailure> => {
  const flags = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | (constants.O_NOCTTY ?? 0) |
    (kind === "directory" ? constants.O_DIRECTORY : 0)
  let before: Stats
  try {
    // Devices and FIFOs are refused before open: opening some (a tape, a tty) acts on them.
    before = await NodeFs.lstat(real)
  } catch (error) {
    const { code, message } = errno(error)
    return code === "ENOENT" || code === "ENOTDIR" ? { _tag: "Missing" } : { _tag: "Failed", code, message }
  }
  if (before.isSymbolicLink()) return { _tag: "Escaped" }
  if (kind === "file" ? !before.isFile() : !before.isDirectory()) return { _tag: "WrongType", actual: before }
  let handle: NodeFs.FileHandle
  try {
    handle = await NodeFs.open(real, flags)
  } catch (error) {
    const { code, message } = errno(error)
    if (code === "ELOOP") return { _tag: "Escaped" }
    if (code === "ENOENT") return { _tag: "Missing" }
    if (code === "ENOTDIR") return { _tag: "Failed", code, message: "it changed while being opened" }
    return { _tag: "Failed", code, message }
  }
  const refuse = async (failure: OpenFailure) => {
    await handle.close().catch(() => undefined)
    return failure
  }
  try {
    const stats = await handle.stat()
    if (kind === "file" ? !stats.isFile() : !stats.isDirectory()) return await refuse({ _tag: "WrongType", actual: stats })
    const name = await nameOf(handle.fd)
    if (name !== undefined) {
      if (!isInside(root, name)) return await refuse({ _tag: "Escaped" })
      return { handle, stats, self: procSelf(handle.fd) }
    }
    // No kernel name: the descriptor must be the object the checked path names now, with no link on the way.
    const [now, again] = await Promise.all([NodeFs.lstat(real), NodeFs.realpath(real)])
    if (!sameObject(now, stats) || !sameObject(before, stats) || again !== real) return await refuse({ _tag: "Escaped" })
    return { handle, stats, self: real }
  } catch (error) {
    return await refuse({ _tag: "Failed", ...errno(error) })
  }
}
