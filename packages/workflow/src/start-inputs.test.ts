import { describe, expect, it } from "vitest";
import type { StartInput } from "./schema.ts";
import { resolveStartInputs } from "./start-inputs.ts";

const inputs: StartInput[] = [
  { name: "question", type: "string", required: true },
  { name: "limit", type: "number", required: false, default: 3 },
  { name: "strict", type: "boolean", required: false },
  { name: "filters", type: "object", required: false },
  { name: "tags", type: "array", required: true, default: [] },
];

describe("resolveStartInputs", () => {
  it("applies defaults, sets absent optional inputs to null and drops undeclared ones", () => {
    expect(resolveStartInputs({ inputs }, { question: "why?", extra: 1 })).toEqual({
      ok: true,
      values: { question: "why?", limit: 3, strict: null, filters: null, tags: [] },
    });
  });

  it("keeps supplied values over defaults", () => {
    const result = resolveStartInputs(
      { inputs },
      { question: "q", limit: 10, strict: false, filters: {}, tags: ["a"] },
    );
    expect(result).toEqual({
      ok: true,
      values: { question: "q", limit: 10, strict: false, filters: {}, tags: ["a"] },
    });
  });

  it("names missing required inputs and wrongly typed ones", () => {
    expect(resolveStartInputs({ inputs }, { limit: "10", strict: "yes", filters: [], tags: null })).toEqual({
      ok: false,
      issues: [
        { path: "inputs.question", code: "missing_required_input", message: "Input question is required." },
        {
          path: "inputs.limit",
          code: "invalid_input_type",
          message: "Input limit must be a number, got string.",
        },
        {
          path: "inputs.strict",
          code: "invalid_input_type",
          message: "Input strict must be a boolean, got string.",
        },
        {
          path: "inputs.filters",
          code: "invalid_input_type",
          message: "Input filters must be an object, got array.",
        },
        {
          path: "inputs.tags",
          code: "invalid_input_type",
          message: "Input tags must be an array, got null.",
        },
      ],
    });
  });

  it("refuses numbers that are not finite", () => {
    const result = resolveStartInputs(
      { inputs: [{ name: "n", type: "number", required: true }] },
      { n: Number.NaN },
    );
    expect(result.ok).toBe(false);
  });
});
