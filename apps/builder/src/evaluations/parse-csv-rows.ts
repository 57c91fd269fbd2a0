import type { ErrorDetail } from "@app/http";
import Papa from "papaparse";
import { type DatasetRowInput, MAX_ROW_CHARS } from "./contract.ts";

/**
 * Dataset rows from CSV text with a header: `input` or `inputs.<field>` columns, and `expected`.
 * Each problem names its line (the header is line 1), so a person can fix the file; with any
 * problem no row is returned.
 *
 * @example parseCsvRows("input,expected\nHi,Hello\n") // { rows: [{ input: "Hi", expected: "Hello" }], problems: [] }
 */
export function parseCsvRows(csv: string): { rows: DatasetRowInput[]; problems: ErrorDetail[] } {
  const parsed = Papa.parse<Record<string, string>>(csv.replace(/^\uFEFF/, ""), {
    header: true,
    skipEmptyLines: "greedy",
  });
  const problems: ErrorDetail[] = parsed.errors.slice(0, 20).map((error) => ({
    path: `line ${(error.row ?? 0) + 2}`,
    message: error.message,
    code: "csv_syntax",
  }));
  const fields = parsed.meta.fields ?? [];
  const inputFields = fields.filter((field) => field.startsWith("inputs."));
  const hasInput = fields.includes("input");
  if (!hasInput && inputFields.length === 0) {
    return {
      rows: [],
      problems: [
        {
          path: "line 1",
          message: "the header needs an `input` column or `inputs.<field>` columns",
          code: "csv_header",
        },
      ],
    };
  }
  if (hasInput && inputFields.length > 0) {
    return {
      rows: [],
      problems: [
        { path: "line 1", message: "use `input` or `inputs.<field>` columns, not both", code: "csv_header" },
      ],
    };
  }
  const rows: DatasetRowInput[] = [];
  parsed.data.forEach((record, index) => {
    const line = `line ${index + 2}`;
    const expected = record.expected === undefined || record.expected === "" ? null : record.expected;
    if (expected !== null && expected.length > MAX_ROW_CHARS) {
      problems.push({
        path: line,
        message: `expected is longer than ${MAX_ROW_CHARS} characters`,
        code: "too_long",
      });
      return;
    }
    if (hasInput) {
      const input = record.input ?? "";
      if (input === "") problems.push({ path: line, message: "input is empty", code: "empty_input" });
      else if (input.length > MAX_ROW_CHARS)
        problems.push({
          path: line,
          message: `input is longer than ${MAX_ROW_CHARS} characters`,
          code: "too_long",
        });
      else rows.push({ input, expected });
      return;
    }
    const inputs = Object.fromEntries(
      inputFields.map((field) => [field.slice("inputs.".length), record[field] ?? ""]),
    );
    if (JSON.stringify(inputs).length > MAX_ROW_CHARS)
      problems.push({
        path: line,
        message: `inputs are longer than ${MAX_ROW_CHARS} characters`,
        code: "too_long",
      });
    else rows.push({ inputs, expected });
  });
  return { rows: problems.length > 0 ? [] : rows, problems: problems.slice(0, 50) };
}
