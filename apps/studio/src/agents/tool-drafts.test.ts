import { describe, expect, it } from "vitest";
import { fromToolDraft, newToolDraft, parametersProblem, toToolDraft } from "./tool-drafts.ts";

describe("tool drafts", () => {
  it("round-trips each tool type the API offers", () => {
    const tools = [
      { type: "knowledge_search", top_k: 8 },
      { type: "knowledge_search" },
      {
        type: "code",
        name: "add",
        description: "Adds",
        language: "go",
        code: "func Main(inputs map[string]any) (map[string]any, error) { return inputs, nil }",
        parameters: { type: "object", properties: { a: { type: "number" } } },
      },
      {
        type: "http",
        name: "stock",
        description: "",
        method: "POST",
        url: "https://api.example.com/stock/{sku}",
        headers: { authorization: "Bearer x" },
        parameters: { type: "object", properties: {} },
      },
      { type: "workflow", name: "restock", description: "", workflow_id: "wf_1" },
    ];
    const drafts = tools.map((tool) => toToolDraft(tool));
    expect(drafts.every((draft) => draft !== null)).toBe(true);
    expect(drafts.map((draft) => (draft ? fromToolDraft(draft) : null))).toEqual(tools);
  });

  it("leaves MCP tools to their own picker", () => {
    expect(toToolDraft({ type: "mcp", server_id: "mcp_1" })).toBeNull();
  });

  it("sends no headers for empty rows, and trims header names", () => {
    const draft = newToolDraft("http", []);
    if (draft.type !== "http") throw new Error("not an HTTP draft");
    draft.headers = [
      { name: "", value: "ignored" },
      { name: " x-key ", value: "1" },
    ];
    expect(fromToolDraft(draft).headers).toEqual({ "x-key": "1" });
    expect(fromToolDraft({ ...draft, headers: [{ name: " ", value: "" }] })).not.toHaveProperty("headers");
  });

  it("names a new tool apart from the ones already there", () => {
    const first = newToolDraft("code", []);
    const second = newToolDraft("code", [first]);
    expect([first, second].map((draft) => ("name" in draft ? draft.name : ""))).toEqual([
      "run_code",
      "run_code_2",
    ]);
  });

  it("says why parameters cannot be sent", () => {
    expect(parametersProblem('{"type":"object"}')).toBeNull();
    expect(parametersProblem("[]")).toMatch(/must be a JSON object/);
    expect(parametersProblem("{")).toMatch(/is not valid JSON/);
  });
});
