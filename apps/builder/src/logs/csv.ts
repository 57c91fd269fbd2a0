/** Written first, so spreadsheets (Excel above all) read the file as UTF-8 rather than a local code page. */
export const CSV_BOM = "\uFEFF";

export type CsvValue = string | number | boolean | null | undefined;

/** Characters that make a field need quotes (RFC 4180: the separator, a quote, a line break). */
const NEEDS_QUOTES = /[",\r\n]/;
/**
 * Text a spreadsheet would run as a formula (CSV injection, OWASP): an end user's message such as
 * `=HYPERLINK(…)` must stay text, so it is written with a leading apostrophe, as Excel itself does.
 */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * One CSV record ending in CRLF: fields quoted when they hold a comma, a quote or a line break,
 * quotes doubled (RFC 4180); null and undefined are empty; text that a spreadsheet would take for a
 * formula gets a leading apostrophe (numbers are written as they are).
 *
 * @example csvRecord(["a,b", 'say "hi"', 3, null]) // '"a,b","say ""hi""",3,\r\n'
 */
export function csvRecord(values: readonly CsvValue[]): string {
  let line = "";
  for (let i = 0; i < values.length; i++) {
    if (i > 0) line += ",";
    const value = values[i];
    if (value === null || value === undefined) continue;
    if (typeof value !== "string") {
      line += String(value);
      continue;
    }
    const text = FORMULA_START.test(value) ? `'${value}` : value;
    line += NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
  }
  return `${line}\r\n`;
}
