import { describe, expect, it } from "vitest";
import { diffAgents, diffLines, diffWorkflows, isEmptyDiff } from "./diff.ts";

const node = (id: string, data: Record<string, unknown>) => ({
  id,
  type: "end",
  position: { x: 0, y: 0 },
  data,
});

describe("the studio's own diffs", () => {
  it("diffs lines the way the API does", () => {
    expect(diffLines("Greet.\nBe brief.\n", "Greet.\nBe thorough.\n")).toEqual([
      { op: "equal", text: "Greet.\n" },
      { op: "remove", text: "Be brief.\n" },
      { op: "add", text: "Be thorough.\n" },
    ]);
    expect(diffLines("", "a")).toEqual([{ op: "add", text: "a" }]);
    expect(diffLines("a\nb\nc", "a\nc")).toEqual([
      { op: "equal", text: "a\n" },
      { op: "remove", text: "b\n" },
      { op: "equal", text: "c" },
    ]);
  });

  it("finds nodes and edges added, removed and changed field by field, ignoring key order", () => {
    const before = {
      name: "Flow",
      graph: {
        nodes: [node("a", { outputs: [] }), node("b", { title: "B", outputs: [] })],
        edges: [{ id: "a-b" }],
      },
    };
    const after = {
      name: "Flow 2",
      graph: {
        nodes: [node("a", { outputs: [] }), node("c", {}), { ...node("b", { outputs: [], title: "Bee" }) }],
        edges: [],
      },
    };
    const diff = diffWorkflows(before, after);
    expect(diff.fields).toEqual([{ field: "name", before: "Flow", after: "Flow 2" }]);
    expect(diff.nodes.added).toEqual([node("c", {})]);
    expect(diff.nodes.changed).toEqual([
      { id: "b", changes: [{ field: "data.title", before: "B", after: "Bee" }] },
    ]);
    expect(diff.edges.removed).toEqual([{ id: "a-b" }]);
    expect(isEmptyDiff(diffWorkflows(before, structuredClone(before)))).toBe(true);
  });

  it("diffs agents field by field with the instructions line by line", () => {
    const agent = {
      name: "A",
      description: "",
      provider: "openai",
      model: "gpt-4o-mini",
      instructions: "One.\nTwo.\n",
      temperature: null,
      tools: [],
      knowledge_base_ids: ["kb_1"],
      memory_turns: 10,
    };
    const diff = diffAgents(agent, {
      ...agent,
      instructions: "One.\nThree.\n",
      knowledge_base_ids: ["kb_2"],
    });
    expect(diff.fields.map((change) => change.field)).toEqual(["instructions", "knowledge_base_ids"]);
    expect(diff.instructions?.map((line) => line.op)).toEqual(["equal", "remove", "add"]);
    expect(diff.knowledge_bases).toEqual({ added: ["kb_2"], removed: ["kb_1"] });
  });
});
