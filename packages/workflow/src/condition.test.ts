import { describe, expect, it } from "vitest";
import { evaluateCondition, type ResolvedCondition, selectCase } from "./condition.ts";
import { MAX_MATCH_INPUT_LENGTH, patternProblem } from "./guarded-regex.ts";
import { NodeExecutionError } from "./node-error.ts";

const holds = (left: unknown, operator: ResolvedCondition["operator"], right?: unknown) =>
  evaluateCondition({ left, operator, right });

describe("evaluateCondition", () => {
  it("compares numbers numerically, also against numeric strings", () => {
    expect(holds(18, "eq", "18")).toBe(true);
    expect(holds("10", "gt", 9)).toBe(true);
    expect(holds("10", "gt", "9")).toBe(true);
    expect(holds(2, "lte", 2)).toBe(true);
    expect(holds(2, "lt", 2)).toBe(false);
    expect(holds(3, "gte", "4")).toBe(false);
    expect(holds("abc", "eq", 0)).toBe(false);
  });

  it("compares strings exactly and orders them by code unit", () => {
    expect(holds("yes", "eq", "yes")).toBe(true);
    expect(holds("yes", "ne", "Yes")).toBe(true);
    expect(holds("2026-01-02", "gt", "2025-12-31")).toBe(true);
    expect(holds("01234", "eq", "1234")).toBe(false);
  });

  it("matches booleans against true/false text", () => {
    expect(holds(true, "eq", "true")).toBe(true);
    expect(holds(false, "eq", " FALSE ")).toBe(true);
    expect(holds(false, "eq", "no")).toBe(false);
  });

  it("treats null and missing alike and compares structures deeply", () => {
    expect(holds(null, "eq", undefined)).toBe(true);
    expect(holds(null, "eq", "")).toBe(false);
    expect(holds([1, { a: 2 }], "eq", [1, { a: 2 }])).toBe(true);
    expect(holds({ a: 1 }, "ne", { a: 2 })).toBe(true);
  });

  it("cannot order values of different kinds", () => {
    expect(holds({ a: 1 }, "gt", 0)).toBe(false);
    expect(holds(null, "lt", 1)).toBe(false);
    expect(holds("abc", "gte", 1)).toBe(false);
  });

  it("finds elements in arrays, text in strings and keys in objects", () => {
    expect(holds([1, 2, 3], "contains", "2")).toBe(true);
    expect(holds(["a", "b"], "contains", "c")).toBe(false);
    expect(holds("hello world", "contains", "lo w")).toBe(true);
    expect(holds({ key: 1 }, "contains", "key")).toBe(true);
    expect(holds(null, "contains", "a")).toBe(false);
    expect(holds(null, "not_contains", "a")).toBe(true);
    expect(holds(["a"], "not_contains", "b")).toBe(true);
  });

  it("checks prefixes and suffixes of text and numbers", () => {
    expect(holds("invoice-42", "starts_with", "invoice-")).toBe(true);
    expect(holds("report.pdf", "ends_with", ".pdf")).toBe(true);
    expect(holds(1234, "starts_with", 12)).toBe(true);
    expect(holds(["a"], "starts_with", "a")).toBe(false);
  });

  it("calls null, empty text, empty arrays and empty objects empty, but not 0 or false", () => {
    for (const value of [null, undefined, "", [], {}]) expect(holds(value, "empty")).toBe(true);
    for (const value of [0, false, " ", [0], { a: null }]) expect(holds(value, "not_empty")).toBe(true);
  });

  it("matches regular expressions", () => {
    expect(holds("ana@example.com", "matches", "^[a-z]+@example\\.com$")).toBe(true);
    expect(holds("ana@example.org", "matches", "^[a-z]+@example\\.com$")).toBe(false);
    expect(holds(404, "matches", "^4\\d\\d$")).toBe(true);
  });

  it("refuses patterns with nested repetition, overlong patterns and overlong input", () => {
    expect(() => holds("aaaa!", "matches", "^(a+)+$")).toThrow(NodeExecutionError);
    expect(() => holds("a", "matches", "a".repeat(201))).toThrow("the limit is 200");
    expect(() => holds("a".repeat(MAX_MATCH_INPUT_LENGTH + 1), "matches", "a")).toThrow(
      expect.objectContaining({ code: "match_input_too_long" }),
    );
    expect(() => holds("a", "matches", 5)).toThrow("must be a pattern string");
  });
});

describe("patternProblem", () => {
  it("accepts ordinary patterns and flags nested repetition inside groups", () => {
    expect(patternProblem("^(ab|cd)*[0-9]{2,4}\\+?$")).toBeUndefined();
    expect(patternProblem("(?:\\d+,)?x")).toBeUndefined();
    expect(patternProblem("([a-z]*,)+")).toMatch(/nested repetition/);
    expect(patternProblem("((ab)+c){2,}")).toMatch(/nested repetition/);
    expect(patternProblem("[(a+)+]")).toBeUndefined();
    expect(patternProblem("(unclosed")).toMatch(/Invalid regular expression/);
  });
});

describe("selectCase", () => {
  const cases = [
    {
      id: "both",
      logic: "and" as const,
      conditions: [
        { left: 5, operator: "gt" as const, right: 1 },
        { left: "x", operator: "eq" as const, right: "y" },
      ],
    },
    {
      id: "either",
      logic: "or" as const,
      conditions: [
        { left: 5, operator: "gt" as const, right: 1 },
        { left: "x", operator: "eq" as const, right: "y" },
      ],
    },
    { id: "always", logic: "and" as const, conditions: [{ left: 1, operator: "eq" as const, right: 1 }] },
  ];

  it("answers the first case whose conditions hold", () => {
    expect(selectCase(cases)).toBe("either");
  });

  it("answers else when no case holds", () => {
    expect(selectCase(cases.slice(0, 1))).toBe("else");
  });
});
