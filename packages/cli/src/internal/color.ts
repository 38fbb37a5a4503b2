/**
 * Whether to paint with ANSI: FORCE_COLOR (set, not "0") forces it; otherwise NO_COLOR (set, not empty) or an
 * output that is not a terminal turns it off. https://no-color.org and the FORCE_COLOR convention.
 */
export const enabled = (env: Readonly<Record<string, string | undefined>>, isTTY: boolean): boolean => {
  const force = env.FORCE_COLOR
  if (force !== undefined && force !== "" && force !== "0" && force !== "false") return true
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false
  return isTTY
}
