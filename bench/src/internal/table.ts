/**
 * Tables for benchmark output, printed as Markdown so a run can be pasted into a README or an issue as it is.
 */

export interface Column {
  readonly header: string
  /** Numbers read best right-aligned; default "left". */
  readonly align?: "left" | "right"
}

export interface Table {
  readonly title: string
  readonly columns: ReadonlyArray<Column>
  readonly rows: ReadonlyArray<ReadonlyArray<string>>
  /** Lines printed under the table: what was measured, how, on what. */
  readonly notes?: ReadonlyArray<string>
}

/** Visible width: "µ", "≤" and "✓" are one column each, like any other code unit here. */
const width = (text: string): number => [...text].length

const pad = (text: string, size: number, align: Column["align"]): string => {
  const fill = " ".repeat(Math.max(0, size - width(text)))
  return align === "right" ? fill + text : text + fill
}

/** The table as Markdown, columns padded to line up in a terminal. */
export const render = (table: Table): string => {
  const { columns, rows } = table
  const sizes = columns.map((column, i) => Math.max(3, width(column.header), ...rows.map((row) => width(row[i] ?? ""))))
  const line = (cells: ReadonlyArray<string>) => `| ${cells.join(" | ")} |`
  const header = line(columns.map((column, i) => pad(column.header, sizes[i]!, column.align)))
  const rule = line(columns.map((column, i) => (column.align === "right" ? "-".repeat(sizes[i]! - 1) + ":" : "-".repeat(sizes[i]!))))
  const body = rows.map((row) => line(columns.map((column, i) => pad(row[i] ?? "", sizes[i]!, column.align))))
  const notes = (table.notes ?? []).map((note) => `> ${note}`)
  return [`### ${table.title}`, "", header, rule, ...body, ...(notes.length > 0 ? ["", ...notes] : []), ""].join("\n")
}

export const print = (table: Table): void => {
  console.log(render(table))
}
