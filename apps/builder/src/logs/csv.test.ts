import Papa from "papaparse";
import { describe, expect, it } from "vitest";
import { instantOf } from "./contract.ts";
import { csvRecord } from "./csv.ts";

describe("csvRecord", () => {
  it("quotes commas, quotes and line breaks as RFC 4180 says, and ends the record with CRLF", () => {
    expect(
      csvRecord(["plain", "a,b", 'say "hi"', "two\nlines", "cr\r\nlf", 3, 0.5, true, null, undefined]),
    ).toBe('plain,"a,b","say ""hi""","two\nlines","cr\r\nlf",3,0.5,true,,\r\n');
  });

  it("reads back through a CSV parser field for field, non-Latin text included", () => {
    const fields = [
      'He said "yes", then left.',
      "Line one\r\nLine two\nthree",
      "東京, 日本",
      "Привет",
      "🙂 ok",
      "",
    ];
    const parsed = Papa.parse<string[]>(csvRecord(fields) + csvRecord(fields), { newline: "\r\n" });
    expect(parsed.errors).toEqual([]);
    expect(parsed.data.slice(0, 2)).toEqual([fields, fields]);
  });

  it("keeps text a spreadsheet would run as a formula as text, and numbers as numbers", () => {
    expect(csvRecord(['=HYPERLINK("http://x")', "+1", "-2 degrees", "@SUM(A1)", -2, "a=b"])).toBe(
      `"'=HYPERLINK(""http://x"")",'+1,'-2 degrees,'@SUM(A1),-2,a=b\r\n`,
    );
  });
});

describe("instantOf", () => {
  it("reads dates as midnight UTC and times with their offset", () => {
    expect(instantOf("2026-03-01").toISOString()).toBe("2026-03-01T00:00:00.000Z");
    expect(instantOf("2026-03-01T09:00:00+07:00").toISOString()).toBe("2026-03-01T02:00:00.000Z");
    expect(instantOf("2026-03-01T09:00-02:30").toISOString()).toBe("2026-03-01T11:30:00.000Z");
    expect(instantOf("2026-03-01T23:59:59.5Z").toISOString()).toBe("2026-03-01T23:59:59.500Z");
    expect(instantOf("2026-02-31").toISOString()).toBe("2026-03-03T00:00:00.000Z");
  });
});
