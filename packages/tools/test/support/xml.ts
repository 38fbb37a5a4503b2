/**
 * A small, strict XML 1.0 well-formedness checker for tests: elements nest and close, names are valid, attributes
 * are quoted and unique, `&` only starts a valid reference, `<` never appears in text or attribute values, there is
 * exactly one root, and no character XML forbids. It returns the element tree (entities decoded) for assertions.
 */
export interface Element {
  readonly name: string
  readonly attributes: Readonly<Record<string, string>>
  readonly children: ReadonlyArray<Element>
  /** The element's own text (children's excluded), references decoded. */
  readonly text: string
}

export class XmlError extends Error {}

const name = /^[A-Za-z_:][A-Za-z0-9_:.-]*/
// eslint-disable-next-line no-control-regex
const forbidden = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

const decode = (raw: string, at: number): string => {
  if (raw.includes("<")) throw new XmlError(`"<" in character data near offset ${at}`)
  return raw.replace(/&([^;\s]*);?/g, (whole, ref: string) => {
    if (!whole.endsWith(";")) throw new XmlError(`unterminated reference "${whole}" near offset ${at}`)
    if (ref === "amp") return "&"
    if (ref === "lt") return "<"
    if (ref === "gt") return ">"
    if (ref === "quot") return '"'
    if (ref === "apos") return "'"
    const code = /^#x([0-9A-Fa-f]+)$/.exec(ref)?.[1] ?? /^#([0-9]+)$/.exec(ref)?.[1]
    if (code === undefined) throw new XmlError(`unknown reference "${whole}" near offset ${at}`)
    const point = ref.startsWith("#x") ? parseInt(code, 16) : parseInt(code, 10)
    const char = String.fromCodePoint(point)
    if (forbidden.test(char)) throw new XmlError(`reference to a forbidden character "${whole}"`)
    return char
  })
}

export const parseXml = (text: string): Element => {
  if (forbidden.test(text)) throw new XmlError("the document holds a character XML forbids")
  let i = 0
  if (text.startsWith("<?xml")) {
    const end = text.indexOf("?>")
    if (end === -1) throw new XmlError("unterminated XML declaration")
    i = end + 2
  }
  type Open = { name: string; attributes: Record<string, string>; children: Array<Element>; text: string }
  const stack: Array<Open> = []
  let root: Element | undefined
  const skipSpace = () => {
    while (i < text.length && /\s/.test(text[i]!)) i++
  }
  while (i < text.length) {
    const lt = text.indexOf("<", i)
    const chunk = text.slice(i, lt === -1 ? text.length : lt)
    const top = stack.at(-1)
    if (top === undefined) {
      if (chunk.trim() !== "") throw new XmlError(`text outside the root element near offset ${i}`)
    } else {
      if (chunk.includes("]]>")) throw new XmlError(`"]]>" in text near offset ${i}`)
      top.text += decode(chunk, i)
    }
    if (lt === -1) break
    i = lt
    if (text.startsWith("<!--", i)) {
      const end = text.indexOf("-->", i + 4)
      if (end === -1) throw new XmlError("unterminated comment")
      i = end + 3
    } else if (text.startsWith("<![CDATA[", i)) {
      if (top === undefined) throw new XmlError("CDATA outside the root element")
      const end = text.indexOf("]]>", i)
      if (end === -1) throw new XmlError("unterminated CDATA section")
      top.text += text.slice(i + 9, end)
      i = end + 3
    } else if (text.startsWith("</", i)) {
      i += 2
      const match = name.exec(text.slice(i))
      if (match === null) throw new XmlError(`bad closing tag near offset ${i}`)
      i += match[0].length
      skipSpace()
      if (text[i] !== ">") throw new XmlError(`bad closing tag near offset ${i}`)
      i++
      const open = stack.pop()
      if (open === undefined || open.name !== match[0]) throw new XmlError(`</${match[0]}> closes ${open === undefined ? "nothing" : `<${open.name}>`}`)
      const element: Element = open
      const parent = stack.at(-1)
      if (parent === undefined) {
        if (root !== undefined) throw new XmlError("more than one root element")
        root = element
      } else {
        parent.children.push(element)
      }
    } else {
      i++
      const match = name.exec(text.slice(i))
      if (match === null) throw new XmlError(`bad element name near offset ${i}`)
      i += match[0].length
      const element: Open = { name: match[0], attributes: {}, children: [], text: "" }
      for (;;) {
        const before = i
        skipSpace()
        if (text.startsWith("/>", i) || text[i] === ">") break
        if (i === before) throw new XmlError(`attributes must be separated by white space near offset ${i}`)
        const attr = name.exec(text.slice(i))
        if (attr === null) throw new XmlError(`bad attribute near offset ${i}`)
        i += attr[0].length
        skipSpace()
        if (text[i] !== "=") throw new XmlError(`attribute ${attr[0]} has no value`)
        i++
        skipSpace()
        const quote = text[i]
        if (quote !== '"' && quote !== "'") throw new XmlError(`attribute ${attr[0]} is not quoted`)
        const end = text.indexOf(quote, i + 1)
        if (end === -1) throw new XmlError(`attribute ${attr[0]} is not closed`)
        if (Object.hasOwn(element.attributes, attr[0])) throw new XmlError(`attribute ${attr[0]} is repeated`)
        element.attributes[attr[0]] = decode(text.slice(i + 1, end), i)
        i = end + 1
      }
      if (root !== undefined && stack.length === 0) throw new XmlError("more than one root element")
      if (text.startsWith("/>", i)) {
        i += 2
        const parent = stack.at(-1)
        if (parent === undefined) root = element
        else parent.children.push(element)
      } else {
        i++
        stack.push(element)
      }
    }
  }
  if (stack.length > 0) throw new XmlError(`<${stack.at(-1)!.name}> is never closed`)
  if (root === undefined) throw new XmlError("no root element")
  return root
}

/** Every descendant element named `name`, in document order. */
export const findAll = (element: Element, name: string): ReadonlyArray<Element> =>
  element.children.flatMap((child) => [...(child.name === name ? [child] : []), ...findAll(child, name)])
