// @vitest-environment happy-dom
import { act, cleanup, renderHook } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { ApiGraph } from "./graph.ts";
import type { GraphIssue } from "./queries.ts";
import { useLiveValidation } from "./useLiveValidation.ts";

// Without vitest's globals, Testing Library does not unmount between tests by itself.
afterEach(cleanup);

const graphOf = (...ids: string[]): ApiGraph => ({
  nodes: ids.map((id) => ({ id, type: "http", position: { x: 0, y: 0 }, data: {} })),
  edges: [],
});
const issueFor = (graph: ApiGraph): GraphIssue[] =>
  graph.nodes.map((node) => ({ path: "nodes", message: "No URL", node_id: node.id }));

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe("useLiveValidation", () => {
  it("asks once per pause in editing, with the latest graph, and cancels the question it replaced", async () => {
    const signals: AbortSignal[] = [];
    const validate = vi.fn(async (graph: ApiGraph, signal: AbortSignal) => {
      signals.push(signal);
      return { issues: issueFor(graph) };
    });
    const { result, rerender } = renderHook((graph: ApiGraph) => useLiveValidation(graph, validate), {
      initialProps: graphOf("http_1"),
    });
    await act(() => vi.advanceTimersByTimeAsync(100));
    rerender(graphOf("http_1", "http_2"));
    await act(() => vi.advanceTimersByTimeAsync(299));
    expect(validate).not.toHaveBeenCalled();
    await act(() => vi.advanceTimersByTimeAsync(1));
    expect(validate).toHaveBeenCalledOnce();
    expect(result.current[0].map((issue) => issue.node_id)).toEqual(["http_1", "http_2"]);

    rerender(graphOf("http_3"));
    expect(signals[0]?.aborted).toBe(true);
  });

  it("keeps the last issues when the check itself fails, and takes issues set from a save", async () => {
    let isOffline = false;
    const validate = vi.fn(async (graph: ApiGraph) => {
      if (isOffline) throw new TypeError("Failed to fetch");
      return { issues: issueFor(graph) };
    });
    const { result, rerender } = renderHook((graph: ApiGraph) => useLiveValidation(graph, validate), {
      initialProps: graphOf("http_1"),
    });
    await act(() => vi.advanceTimersByTimeAsync(300));
    isOffline = true;
    rerender(graphOf("http_2"));
    await act(() => vi.advanceTimersByTimeAsync(300));
    expect(result.current[0].map((issue) => issue.node_id)).toEqual(["http_1"]);

    act(() => result.current[1]([{ path: "edges", message: "A cycle" }]));
    expect(result.current[0]).toEqual([{ path: "edges", message: "A cycle" }]);
  });
});
