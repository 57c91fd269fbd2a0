import type { Edge } from "@xyflow/react";
import { describe, expect, it } from "vitest";
import { ApiError } from "../api/client.ts";
import { type ApiGraph, type EditorNode, toApi, toEditor } from "./graph.ts";
import {
  clearSelection,
  configureNode,
  connect,
  copyableNodes,
  displayNodes,
  fingerprint,
  issuesByNode,
  newNode,
  pasteNodes,
  removeNode,
  saveIssues,
  selectAll,
  showsMinimap,
} from "./graph-edits.ts";

const stored: ApiGraph = {
  nodes: [
    { id: "start", type: "start", position: { x: 0, y: 0 }, data: { inputs: [] } },
    {
      id: "http_1",
      type: "http",
      position: { x: 280, y: 0 },
      data: { method: "GET", url: "https://a.test" },
    },
    { id: "end", type: "end", position: { x: 560, y: 0 }, data: { outputs: [] } },
  ],
  edges: [
    { id: "e1", source: "start", target: "http_1" },
    { id: "e2", source: "http_1", target: "end" },
  ],
};
const graph = () => toEditor(stored);
const byId = (nodes: EditorNode[], id: string) => nodes.find((node) => node.id === id) as EditorNode;

describe("selection", () => {
  it("select all selects every node and edge, keeping the objects of those already selected", () => {
    const { nodes, edges } = graph();
    const first = { ...(nodes[0] as EditorNode), selected: true };
    const all = selectAll({ nodes: [first, ...nodes.slice(1)], edges });
    expect(all.nodes.every((node) => node.selected)).toBe(true);
    expect(all.edges.every((edge) => edge.selected)).toBe(true);
    expect(all.nodes[0]).toBe(first);
  });

  it("clearing the selection leaves nothing selected and unselected objects untouched", () => {
    const all = selectAll(graph());
    const cleared = clearSelection({ nodes: all.nodes, edges: graph().edges });
    expect(cleared.nodes.some((node) => node.selected)).toBe(false);
    expect(cleared.edges.some((edge) => edge.selected)).toBe(false);
  });
});

describe("copy and paste", () => {
  it("copies the selected nodes but never the Start node", () => {
    const { nodes } = selectAll(graph());
    expect(copyableNodes(nodes).map((node) => node.id)).toEqual(["http_1", "end"]);
  });

  it("pastes copies under fresh ids, 40 px down and right, selected instead of the originals", () => {
    const nodes = selectAll(graph()).nodes;
    const pasted = pasteNodes(nodes, [byId(nodes, "http_1")]);
    expect(pasted.map((node) => node.id)).toEqual(["start", "http_1", "end", "http_2"]);
    expect(byId(pasted, "http_2").position).toEqual({ x: 320, y: 40 });
    expect(byId(pasted, "http_2").data).toEqual(byId(nodes, "http_1").data);
    expect(pasted.filter((node) => node.selected).map((node) => node.id)).toEqual(["http_2"]);
  });

  it("gives two copies of one type pasted together two different ids", () => {
    const { nodes } = graph();
    const copy = byId(nodes, "http_1");
    const pasted = pasteNodes(nodes, [copy, { ...copy, id: "http_9" }]);
    expect(pasted.slice(3).map((node) => node.id)).toEqual(["http_2", "http_3"]);
  });
});

describe("edits", () => {
  it("a new node gets the next free id of its type and its type's defaults", () => {
    const node = newNode("http", { x: 5, y: 6 }, graph().nodes);
    expect(node).toMatchObject({ id: "http_2", type: "step", position: { x: 5, y: 6 } });
    expect(node.data.config).toEqual({ method: "GET", url: "https://example.com" });
  });

  it("connecting names the edge by both ends and the handle, and does not add it twice", () => {
    const connection = { source: "start", target: "end", sourceHandle: null, targetHandle: null };
    const once = connect([], connection);
    expect(once.map((edge) => edge.id)).toEqual(["e_start_out_end"]);
    expect(connect(once, connection)).toHaveLength(1);
    const caseEdge = connect(once, { ...connection, sourceHandle: "case_1" });
    expect(caseEdge.map((edge: Edge) => edge.id)).toEqual(["e_start_out_end", "e_start_case_1_end"]);
  });

  it("removing a node removes the edges that touch it", () => {
    const after = removeNode(graph(), "http_1");
    expect(after.nodes.map((node) => node.id)).toEqual(["start", "end"]);
    expect(after.edges).toEqual([]);
  });

  it("configuring a node replaces its config, and its error settings only when given", () => {
    const nodes = configureNode(graph().nodes, "http_1", { method: "POST" }, { on_error: "continue" });
    expect(byId(nodes, "http_1").data).toMatchObject({
      config: { method: "POST" },
      extra: { on_error: "continue" },
    });
    const again = configureNode(nodes, "http_1", { method: "PUT" });
    expect(byId(again, "http_1").data.extra).toEqual({ on_error: "continue" });
    expect(byId(again, "start")).toBe(byId(nodes, "start"));
  });
});

describe("what the canvas shows", () => {
  it("groups issue messages by the node they name and leaves out graph-wide ones", () => {
    const grouped = issuesByNode([
      { path: "nodes.1.data.url", message: "No URL", node_id: "http_1" },
      { path: "nodes.1.data.method", message: "Bad method", node_id: "http_1" },
      { path: "edges", message: "A cycle" },
    ]);
    expect([...grouped]).toEqual([["http_1", ["No URL", "Bad method"]]]);
  });

  it("puts each node's issues and run status in its data", () => {
    const show = displayNodes();
    const shown = show(graph().nodes, new Map([["http_1", ["No URL"]]]), (id) =>
      id === "start" ? "succeeded" : undefined,
    );
    expect(byId(shown, "http_1").data).toMatchObject({ issues: ["No URL"] });
    expect(byId(shown, "http_1").data.runStatus).toBeUndefined();
    expect(byId(shown, "start").data).toMatchObject({ issues: [], runStatus: "succeeded" });
  });

  it("keeps an unchanged node's shown object, its shown data across moves and selection, and renews it when its issues change", () => {
    const show = displayNodes();
    const { nodes } = graph();
    const noStatus = () => undefined;
    const first = show(nodes, new Map(), noStatus);
    for (const [i, node] of show(nodes, new Map(), noStatus).entries()) expect(node).toBe(first[i]);
    const moved = nodes.map((node) => ({ ...node, position: { x: 1, y: 1 }, selected: true }));
    const second = show(moved, new Map(), noStatus);
    for (const [i, node] of second.entries()) expect(node.data).toBe(first[i]?.data);
    expect(byId(second, "start").position).toEqual({ x: 1, y: 1 });

    const third = show(moved, new Map([["http_1", ["No URL"]]]), noStatus);
    expect(byId(third, "http_1").data).not.toBe(byId(second, "http_1").data);
    expect(byId(third, "end").data).toBe(byId(second, "end").data);
  });
});

describe("showsMinimap", () => {
  it("shows the minimap of up to 500 nodes at any zoom, and of more only when zoomed in", () => {
    expect(showsMinimap(500, 0.02)).toBe(true);
    expect(showsMinimap(1000, 0.05)).toBe(false);
    expect(showsMinimap(1000, 0.3)).toBe(true);
  });
});

describe("fingerprint", () => {
  it("is the same for a graph stored with its keys in another order", () => {
    const reordered = JSON.parse(
      JSON.stringify(stored, (_key, value: unknown) =>
        value && typeof value === "object" && !Array.isArray(value)
          ? Object.fromEntries(Object.entries(value).reverse())
          : value,
      ),
    ) as ApiGraph;
    expect(fingerprint("flow", reordered)).toBe(fingerprint("flow", stored));
  });

  it("differs when a node moves or the name changes", () => {
    const { nodes, edges } = graph();
    const moved = toApi(
      nodes.map((node) => (node.id === "end" ? { ...node, position: { x: 600, y: 0 } } : node)),
      edges,
    );
    expect(fingerprint("flow", moved)).not.toBe(fingerprint("flow", stored));
    expect(fingerprint("other", stored)).not.toBe(fingerprint("flow", stored));
  });
});

describe("a refused save", () => {
  it("shows its graph issues on the nodes they name", () => {
    const error = new ApiError(422, "INVALID_GRAPH", "The graph is not valid", [
      { path: "nodes.1.data.url", message: "No URL", node_id: "http_1" } as { path: string; message: string },
      { path: "edges", message: "A cycle" },
    ]);
    expect(saveIssues(error)).toEqual([
      { path: "nodes.1.data.url", message: "No URL", node_id: "http_1" },
      { path: "edges", message: "A cycle" },
    ]);
  });
});
