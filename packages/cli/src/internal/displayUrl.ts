/** A URL for display: no credentials, no query (where tokens hide). */
export const displayUrl = (url: string): string => {
  try {
    const parsed = new URL(url)
    return `${parsed.protocol}//${parsed.host}${parsed.pathname === "/" ? "" : parsed.pathname}`
  } catch {
    return "(an invalid URL)"
  }
}
