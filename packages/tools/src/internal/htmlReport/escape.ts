/**
 * Text made safe for HTML: every character that could open markup, close an attribute or start an entity is written
 * as an entity, so model output, case files and file names are shown as they are and never read as markup.
 */

// Control characters other than tab, line feed and carriage return have no business in a page.
// eslint-disable-next-line no-control-regex
const control = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/g

/** `text` as HTML text or as a quoted attribute's value. */
export const escapeHtml = (text: string): string =>
  text
    .replace(control, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, "0")}`)
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;")
