// CSV for spreadsheets (RFC 4180): every cell quoted when it holds a comma, quote or line break,
// and cells that a spreadsheet would run as a formula (=, +, -, @, tab, CR first) prefixed with an
// apostrophe (OWASP "CSV injection"), since names and notes come from customers and inquiries.
const FORMULA_START = /^[=+\-@\t\r]/;

export function csvCell(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return "";
  let text = String(value);
  if (typeof value === "string" && FORMULA_START.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) || text !== text.trim() ? `"${text.replaceAll('"', '""')}"` : text;
}

/** A whole document: header row first, CRLF line ends, UTF-8 BOM so Excel reads accents right. */
export function toCsv(
  header: readonly string[],
  rows: ReadonlyArray<ReadonlyArray<string | number | null | undefined>>,
): string {
  const lines = [header, ...rows].map((row) => row.map(csvCell).join(","));
  return `\uFEFF${lines.join("\r\n")}\r\n`;
}
