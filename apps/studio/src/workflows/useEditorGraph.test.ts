// @vitest-environment happy-dom
import { act, cleanup, renderHook } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { toEditor } from "./graph.ts";
import { newNode, removeNode, selectAll } from "./graph-edits.ts";
import { useEditorGraph } from "./useEditorGraph.ts";

// Without vitest's globals, Testing Library does not unmount between tests by itself.
afterEach(cleanup);

const initial = toEditor({
  nodes: [
    { id: "start", type: "start", position: { x: 0, y: 0 }, data: { inputs: [] } },
    { id: "end", type: "end", position: { x: 280, y: 0 }, data: { outputs: [] } },
  ],
  edges: [{ id: "e1", source: "start", target: "end" }],
});
const ids = (nodes: { id: string }[]) => nodes.map((node) => node.id);

describe("useEditorGraph", () => {
  it("undoes and redoes each change as one step", () => {
    const { result } = renderHook(() => useEditorGraph(initial));
    act(() => result.current.change((graph) => removeNode(graph, "end")));
    act(() =>
      result.current.change((graph) => ({
        ...graph,
        nodes: [...graph.nodes, newNode("llm", { x: 0, y: 0 }, graph.nodes)],
      })),
    );
    expect(ids(result.current.nodes)).toEqual(["start", "llm_1"]);

    act(() => result.current.undo());
    expect(ids(result.current.nodes)).toEqual(["start"]);
    act(() => result.current.undo());
    expect(ids(result.current.nodes)).toEqual(["start", "end"]);
    expect(result.current.edges).toHaveLength(1);
    expect(result.current.canUndo).toBe(false);

    act(() => result.current.redo());
    expect(ids(result.current.nodes)).toEqual(["start"]);
    expect(result.current.canRedo).toBe(true);
  });

  it("a change after an undo drops what could have been redone", () => {
    const { result } = renderHook(() => useEditorGraph(initial));
    act(() => result.current.change((graph) => removeNode(graph, "end")));
    act(() => result.current.undo());
    act(() => result.current.change((graph) => removeNode(graph, "start")));
    expect(result.current.canRedo).toBe(false);
  });

  it("two changes in one event build on each other", () => {
    const { result } = renderHook(() => useEditorGraph(initial));
    act(() => {
      result.current.change((graph) => removeNode(graph, "end"));
      result.current.change((graph) => ({
        ...graph,
        nodes: [...graph.nodes, newNode("code", { x: 0, y: 0 }, graph.nodes)],
      }));
    });
    expect(ids(result.current.nodes)).toEqual(["start", "code_1"]);
  });

  it("selection, moves and measurements are not undo steps; a recorded drag is", () => {
    const { result } = renderHook(() => useEditorGraph(initial));
    act(() => result.current.select(selectAll));
    act(() =>
      result.current.onNodesChange([
        { id: "end", type: "dimensions", dimensions: { width: 180, height: 60 } },
      ]),
    );
    expect(result.current.nodes.every((node) => node.selected)).toBe(true);
    expect(result.current.canUndo).toBe(false);

    act(() => result.current.record());
    act(() => result.current.onNodesChange([{ id: "end", type: "position", position: { x: 900, y: 0 } }]));
    act(() => result.current.undo());
    expect(result.current.nodes.find((node) => node.id === "end")?.position).toEqual({ x: 280, y: 0 });
  });

  it("answers the same functions on every render, so the canvas's props stay the same", () => {
    const { result } = renderHook(() => useEditorGraph(initial));
    const before = result.current;
    act(() => result.current.change((graph) => removeNode(graph, "end")));
    act(() => result.current.onEdgesChange([{ id: "e1", type: "select", selected: true }]));
    for (const name of [
      "change",
      "select",
      "record",
      "undo",
      "redo",
      "onNodesChange",
      "onEdgesChange",
    ] as const) {
      expect(result.current[name], name).toBe(before[name]);
    }
  });
});
