import type { Edge } from "@xyflow/react";
import { describe, expect, it } from "vitest";
import {
  type ApiGraph,
  autoLayout,
  defaultData,
  type EditorNode,
  NODE_TYPES,
  nextNodeId,
  outputsOf,
  toApi,
  toEditor,
  upstreamOf,
  variablesFor,
} from "./graph.ts";

const graph: ApiGraph = {
  nodes: [
    { id: "start", type: "start", position: { x: 0, y: 0 }, data: { inputs: [{ name: "q" }] } },
    {
      id: "http_1",
      type: "http",
      position: { x: 280, y: 0 },
      data: { method: "GET", url: "https://example.com" },
      on_error: "continue",
      default_output: { status: 0 },
      timeout_ms: 5000,
    },
    { id: "condition_1", type: "condition", position: { x: 560, y: 0 }, data: { cases: [] } },
    { id: "end", type: "end", position: { x: 840, y: 0 }, data: { outputs: [] } },
  ],
  edges: [
    { id: "e1", source: "start", target: "http_1" },
    { id: "e2", source: "http_1", target: "condition_1" },
    { id: "e3", source: "condition_1", target: "end", source_handle: "case_1" },
  ],
};

function editorNode(
  id: string,
  apiType: EditorNode["data"]["apiType"],
  config: Record<string, unknown> = {},
) {
  return toEditor({ nodes: [{ id, type: apiType, position: { x: 0, y: 0 }, data: config }], edges: [] })
    .nodes[0] as EditorNode;
}

const edge = (source: string, target: string): Edge => ({ id: `${source}-${target}`, source, target });

describe("toEditor and toApi", () => {
  it("round-trip a graph: node settings, condition handles and all", () => {
    const { nodes, edges } = toEditor(graph);
    expect(toApi(nodes, edges)).toEqual(graph);
  });

  it("keep a node's settings beside its data and a condition's handle on its edge", () => {
    const { nodes, edges } = toEditor(graph);
    expect(nodes[1]?.data.extra).toEqual({
      on_error: "continue",
      default_output: { status: 0 },
      timeout_ms: 5000,
    });
    expect(nodes[0]?.data.extra).toEqual({});
    expect(edges[2]?.sourceHandle).toBe("case_1");
    expect(edges[0]).not.toHaveProperty("sourceHandle");
  });

  it("store whole-pixel positions, as dragging leaves fractions", () => {
    const { nodes, edges } = toEditor(graph);
    const dragged = nodes.map((node) => ({ ...node, position: { x: node.position.x + 0.6, y: 10.4 } }));
    expect(toApi(dragged, edges).nodes.map((node) => node.position)).toEqual([
      { x: 1, y: 10 },
      { x: 281, y: 10 },
      { x: 561, y: 10 },
      { x: 841, y: 10 },
    ]);
  });
});

describe("nextNodeId", () => {
  it("names the first start node `start`, and numbered ids after that", () => {
    expect(nextNodeId("start", [])).toBe("start");
    expect(nextNodeId("start", [{ id: "start" }])).toBe("start_1");
  });

  it("takes the first free number, filling a gap a deleted node left", () => {
    expect(nextNodeId("llm", [])).toBe("llm_1");
    expect(nextNodeId("llm", [{ id: "llm_1" }, { id: "llm_3" }])).toBe("llm_2");
  });
});

describe("outputsOf", () => {
  it("lists a start node's inputs and a code node's declared outputs", () => {
    expect(outputsOf(editorNode("start", "start", { inputs: [{ name: "a" }, { name: "b" }] }), {})).toEqual([
      "a",
      "b",
    ]);
    expect(outputsOf(editorNode("code_1", "code", { outputs: [{ name: "sum" }] }), {})).toEqual(["sum"]);
    expect(outputsOf(editorNode("code_2", "code"), {})).toEqual([]);
  });

  it("adds `json` to an LLM node's outputs only when it asks for structured output", () => {
    expect(outputsOf(editorNode("llm_1", "llm"), {})).toEqual(["text", "usage"]);
    expect(outputsOf(editorNode("llm_2", "llm", { json_schema: { type: "object" } }), {})).toEqual([
      "text",
      "json",
      "usage",
    ]);
  });

  it("gives a tool node its tool's outputs, or `result` for a tool the server did not list", () => {
    const tools = { web_search: ["results", "count"] };
    expect(outputsOf(editorNode("tool_1", "tool", { tool: "web_search" }), tools)).toEqual([
      "results",
      "count",
    ]);
    expect(outputsOf(editorNode("tool_2", "tool", { tool: "gone" }), tools)).toEqual(["result"]);
  });

  it("adds error.code and error.message for a node that continues or branches on error", () => {
    const branching = toEditor({
      nodes: [{ id: "http_1", type: "http", position: { x: 0, y: 0 }, data: {}, on_error: "branch" }],
      edges: [],
    }).nodes[0] as EditorNode;
    expect(outputsOf(branching, {})).toEqual([
      "status",
      "headers",
      "body",
      "json",
      "error.code",
      "error.message",
    ]);
  });

  it("keeps a node's retry and an edge out of its error handle through a round trip", () => {
    const withBranch = {
      nodes: [
        {
          id: "http_1",
          type: "http" as const,
          position: { x: 0, y: 0 },
          data: { method: "GET", url: "https://example.com" },
          on_error: "branch" as const,
          retry: { max_attempts: 3, backoff: "fixed" as const, initial_ms: 500, max_ms: 5_000 },
        },
        { id: "end", type: "end" as const, position: { x: 0, y: 0 }, data: { outputs: [] } },
      ],
      edges: [{ id: "e1", source: "http_1", target: "end", source_handle: "error" }],
    };
    const { nodes, edges } = toEditor(withBranch);
    expect(edges[0]?.sourceHandle).toBe("error");
    expect(toApi(nodes, edges)).toEqual(withBranch);
  });

  it("gives every type a list, and an end node none", () => {
    for (const { type } of NODE_TYPES) {
      expect(Array.isArray(outputsOf(editorNode(`${type}_1`, type, defaultData(type)), {}))).toBe(true);
    }
    expect(outputsOf(editorNode("end", "end", defaultData("end")), {})).toEqual([]);
  });
});

describe("upstreamOf", () => {
  it("is every ancestor along edges, through both branches of a diamond, and nothing downstream", () => {
    const edges = [
      edge("start", "a"),
      edge("start", "b"),
      edge("a", "join"),
      edge("b", "join"),
      edge("join", "end"),
    ];
    expect(upstreamOf("join", edges)).toEqual(new Set(["a", "b", "start"]));
    expect(upstreamOf("start", edges)).toEqual(new Set());
  });

  it("ends on a cycle (which validation reports) instead of looping", () => {
    expect(upstreamOf("a", [edge("a", "b"), edge("b", "a")])).toEqual(new Set(["a", "b"]));
  });
});

describe("autoLayout", () => {
  it("puts each node one column right of its deepest parent, rows stacked within a column", () => {
    const nodes = ["start", "a", "b", "join"].map((id) => editorNode(id, "llm"));
    const edges = [edge("start", "a"), edge("a", "b"), edge("start", "join"), edge("b", "join")];
    const laid = Object.fromEntries(autoLayout(nodes, edges).map((node) => [node.id, node.position]));
    expect(laid).toEqual({
      start: { x: 0, y: 0 },
      a: { x: 280, y: 0 },
      b: { x: 560, y: 0 },
      join: { x: 840, y: 0 },
    });
  });

  it("stacks siblings in one column and lays out a cycle without looping", () => {
    const nodes = ["start", "x", "y"].map((id) => editorNode(id, "llm"));
    const siblings = autoLayout(nodes, [edge("start", "x"), edge("start", "y")]);
    expect(siblings.map((node) => node.position)).toEqual([
      { x: 0, y: 0 },
      { x: 280, y: 0 },
      { x: 280, y: 140 },
    ]);
    expect(autoLayout(nodes.slice(1), [edge("x", "y"), edge("y", "x")])).toHaveLength(2);
  });
});

describe("variablesFor", () => {
  it("offers each output of every node upstream, and nothing from downstream or unconnected nodes", () => {
    const { nodes, edges } = toEditor(graph);
    expect(variablesFor("condition_1", nodes, edges, {})).toEqual([
      "{{start.q}}",
      "{{http_1.status}}",
      "{{http_1.headers}}",
      "{{http_1.body}}",
      "{{http_1.json}}",
      // http_1 continues on error, so it may pass on an error.
      "{{http_1.error.code}}",
      "{{http_1.error.message}}",
    ]);
    expect(variablesFor("start", nodes, edges, {})).toEqual([]);
  });
});
