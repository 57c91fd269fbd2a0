// @vitest-environment happy-dom
import { cleanup, renderHook } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { type EditorNode, toEditor } from "./graph.ts";
import { useClipboard } from "./useClipboard.ts";

// Without vitest's globals, Testing Library does not unmount between tests by itself.
afterEach(cleanup);

const nodes = toEditor({
  nodes: [
    { id: "start", type: "start", position: { x: 0, y: 0 }, data: { inputs: [] } },
    { id: "llm_1", type: "llm", position: { x: 280, y: 0 }, data: { prompt: "hi" } },
  ],
  edges: [],
}).nodes;
const selecting = (...ids: string[]): EditorNode[] =>
  nodes.map((node) => ({ ...node, selected: ids.includes(node.id) }));

describe("useClipboard", () => {
  it("pastes nothing before anything was copied", () => {
    const { result } = renderHook(() => useClipboard());
    expect(result.current.paste(nodes)).toBeNull();
  });

  it("keeps what was copied across renders and pastes it as often as asked", () => {
    const { result, rerender } = renderHook(() => useClipboard());
    result.current.copy(selecting("llm_1"));
    rerender();
    const once = result.current.paste(nodes) ?? [];
    const twice = result.current.paste(once) ?? [];
    expect(twice.map((node) => node.id)).toEqual(["start", "llm_1", "llm_2", "llm_3"]);
  });

  it("a copy with only the Start node selected keeps the earlier copy", () => {
    const { result } = renderHook(() => useClipboard());
    result.current.copy(selecting("llm_1"));
    result.current.copy(selecting("start"));
    expect(result.current.paste(nodes)?.map((node) => node.id)).toEqual(["start", "llm_1", "llm_2"]);
  });
});
