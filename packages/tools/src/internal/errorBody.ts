/**
 * What an HTTP error's body says, in one short line: the SDK quotes the body of a refused request in its error, and a
 * web server's 404 page is many lines of HTML that end up in a one-line message (and on the terminal). An HTML page is
 * reduced to its text (its head, scripts and styles left out; its title if it has no other), anything else to its
 * words on one line; either is cut at `maxChars`.
 */

/** Characters an error's body is cut at. */
export const maxChars = 200

const entities: Readonly<Record<string, string>> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " " }

/** `text`'s words on one line: control characters and runs of space become one space. */
const oneLine = (text: string): string =>
  // eslint-disable-next-line no-control-regex -- control characters are what is removed
  text.replace(/[\u0000-\u001f\u007f-\u009f\s]+/g, " ").trim()

const cut = (text: string): string => (text.length > maxChars ? `${text.slice(0, maxChars - 1)}…` : text)

const isHtml = (text: string, contentType: string | null): boolean =>
  /^\s*text\/html\b/i.test(contentType ?? "") || /^\s*(<!doctype html|<html[\s>])/i.test(text)

/** `text` with its character references (`&amp;`, `&#65;`, `&#x42;`) read; one it does not know is kept. */
const decodeEntities = (text: string): string =>
  text.replace(/&(#\d+|#x[\da-f]+|[a-z]+);/gi, (whole, name: string) => {
    if (!name.startsWith("#")) return entities[name.toLowerCase()] ?? whole
    const code = name[1] === "x" || name[1] === "X" ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10)
    return code > 0 && code < 0x110000 ? String.fromCodePoint(code) : whole
  })

/** The text of an HTML page, as a person would read it. */
const pageText = (html: string): string => {
  const title = oneLine(decodeEntities(/<title[^>]*>([^]*?)<\/title>/i.exec(html)?.[1] ?? ""))
  const body = oneLine(
    decodeEntities(html.replace(/<head[\s>][^]*?<\/head>|<script[\s>][^]*?<\/script>|<style[\s>][^]*?<\/style>|<!--[^]*?-->/gi, " ").replace(/<[^>]*>/g, " "))
  )
  return body === "" ? title : body
}

/** The body of an error response in one line: `an HTML page: …` for a page, its words for anything else. */
export const summary = (text: string, contentType: string | null): string => {
  if (isHtml(text, contentType)) {
    const said = pageText(text)
    return cut(said === "" ? "an HTML page" : `an HTML page: ${said}`)
  }
  const said = oneLine(text)
  return said === "" ? "an empty body" : cut(said)
}
