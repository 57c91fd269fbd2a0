import { describe, expect, it } from "vitest";
import { parseTemplate, resolveTemplates, resolveTemplateText, TemplateError } from "./template.ts";

const scope = {
  start: { question: "why?", n: 2, flag: false, nothing: null },
  code_1: { items: [{ name: "a" }, { name: "b" }], meta: { tags: ["x", "y"] } },
};

describe("parseTemplate", () => {
  it("splits text, references with paths and indexes, and malformed references", () => {
    expect(
      parseTemplate("Q: {{ start.question }} / {{code_1.items[1].name}} / {{start}} / {{ a + b }}"),
    ).toEqual([
      { kind: "text", text: "Q: " },
      {
        kind: "reference",
        reference: { node_id: "start", path: ["question"], source: "start.question" },
      },
      { kind: "text", text: " / " },
      {
        kind: "reference",
        reference: { node_id: "code_1", path: ["items", 1, "name"], source: "code_1.items[1].name" },
      },
      { kind: "text", text: " / " },
      { kind: "malformed", text: "{{start}}" },
      { kind: "text", text: " / {{ a + b }}" },
    ]);
  });

  it("treats an index right after the node id as malformed", () => {
    expect(parseTemplate("{{start[0]}}")).toEqual([{ kind: "malformed", text: "{{start[0]}}" }]);
  });
});

describe("resolveTemplates", () => {
  it("keeps the type of a string that is exactly one template", () => {
    expect(resolveTemplates("{{start.n}}", scope)).toBe(2);
    expect(resolveTemplates("{{start.flag}}", scope)).toBe(false);
    expect(resolveTemplates("{{code_1.items[0]}}", scope)).toEqual({ name: "a" });
    expect(resolveTemplates("{{start.nothing}}", scope)).toBeNull();
  });

  it("stringifies values inside mixed strings", () => {
    expect(resolveTemplates("n={{start.n}} tags={{code_1.meta.tags}} none={{start.nothing}}", scope)).toBe(
      'n=2 tags=["x","y"] none=',
    );
  });

  it("resolves nested objects and arrays and leaves non-strings alone", () => {
    const value = {
      query: { text: "{{start.question}}", limit: 5, filters: ["{{code_1.meta.tags[1]}}", "fixed"] },
      all: "{{code_1.items}}",
      flag: true,
    };
    expect(resolveTemplates(value, scope)).toEqual({
      query: { text: "why?", limit: 5, filters: ["y", "fixed"] },
      all: [{ name: "a" }, { name: "b" }],
      flag: true,
    });
  });

  it("throws a TemplateError naming the missing path by default", () => {
    expect(() => resolveTemplates("{{code_1.items[5].name}}", scope)).toThrow(
      new TemplateError(
        { node_id: "code_1", path: ["items", 5, "name"], source: "code_1.items[5].name" },
        "{{code_1.items[5].name}}: code_1 has no value at items[5]",
      ),
    );
    expect(() => resolveTemplates("x {{llm_9.text}}", scope)).toThrow("node llm_9 has no outputs");
  });

  it("resolves missing paths empty when asked: null alone, an empty string in text", () => {
    expect(resolveTemplates("{{start.absent}}", scope, { missing: "empty" })).toBeNull();
    expect(resolveTemplates("[{{start.absent}}]", scope, { missing: "empty" })).toBe("[]");
    expect(resolveTemplates("{{llm_9.text}}", scope, { missing: "empty" })).toBeNull();
  });

  it("resolves references to optional (skipped) nodes empty even under missing: error", () => {
    const options = { optionalNodes: new Set(["branch_b"]) };
    expect(resolveTemplates("a={{start.n}} b={{branch_b.result}}", scope, options)).toBe("a=2 b=");
    expect(() => resolveTemplates("{{branch_c.result}}", scope, options)).toThrow(TemplateError);
  });

  it("does not reach into prototypes", () => {
    expect(() => resolveTemplates("{{code_1.meta.constructor}}", scope)).toThrow(
      "has no value at meta.constructor",
    );
    expect(() => resolveTemplates("{{start.question.length}}", scope)).toThrow(TemplateError);
  });
});

describe("resolveTemplateText", () => {
  it("always answers a string", () => {
    expect(resolveTemplateText("{{start.n}}", scope)).toBe("2");
    expect(resolveTemplateText("{{code_1.items[1]}}", scope)).toBe('{"name":"b"}');
    expect(resolveTemplateText("no templates", scope)).toBe("no templates");
  });
});
