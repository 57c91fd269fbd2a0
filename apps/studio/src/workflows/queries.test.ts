// @vitest-environment happy-dom
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { act, cleanup, renderHook, waitFor } from "@testing-library/react";
import { createElement, type ReactNode } from "react";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { ApiGraph } from "./graph.ts";
import { useRunList, useSaveWorkflow, useWorkflowList } from "./queries.ts";

// Without vitest's globals, Testing Library does not unmount between tests by itself.
afterEach(cleanup);
afterEach(() => vi.unstubAllGlobals());

/** The API as the browser's fetch would see it: `answer` gets each request's method, URL and body. */
function serve(answer: (method: string, url: string, body: unknown) => unknown) {
  const asked: string[] = [];
  vi.stubGlobal("fetch", async (url: string, init: RequestInit = {}) => {
    const method = init.method ?? "GET";
    asked.push(`${method} ${url}`);
    const body = typeof init.body === "string" ? JSON.parse(init.body) : undefined;
    const answered = answer(method, url, body);
    return answered === undefined
      ? new Response(JSON.stringify({ error: { code: "not_found", message: "no such page" } }), {
          status: 404,
        })
      : new Response(JSON.stringify(answered), { status: 200 });
  });
  return asked;
}

function withClient() {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  return ({ children }: { children: ReactNode }) => createElement(QueryClientProvider, { client }, children);
}

const run = (id: string, status: string) => ({ id, status });
const graph: ApiGraph = { nodes: [], edges: [] };

describe("useRunList", () => {
  it("asks the API for the chosen status and keeps asking for it on the next page", async () => {
    const asked = serve((_, url) => {
      if (url === "/api/workflows/wf_1/runs?status=failed&limit=50")
        return {
          data: [run("run_4", "failed"), run("run_3", "failed")],
          has_more: true,
          next_cursor: "run_3",
        };
      if (url === "/api/workflows/wf_1/runs?status=failed&limit=50&cursor=run_3")
        return { data: [run("run_1", "failed")], has_more: false, next_cursor: null };
      return undefined;
    });
    const { result } = renderHook(() => useRunList("wf_1", "failed"), { wrapper: withClient() });
    await waitFor(() => expect(result.current.data?.map((r) => r.id)).toEqual(["run_4", "run_3"]));

    await act(() => result.current.fetchNextPage());
    await waitFor(() => expect(result.current.data?.map((r) => r.id)).toEqual(["run_4", "run_3", "run_1"]));
    expect(result.current.hasNextPage).toBe(false);
    expect(asked).toEqual([
      "GET /api/workflows/wf_1/runs?status=failed&limit=50",
      "GET /api/workflows/wf_1/runs?status=failed&limit=50&cursor=run_3",
    ]);
  });

  it("sends no status for all runs", async () => {
    const asked = serve((_, url) =>
      url === "/api/workflows/wf_1/runs?limit=50"
        ? { data: [run("run_2", "succeeded"), run("run_1", "failed")], has_more: false, next_cursor: null }
        : undefined,
    );
    const { result } = renderHook(() => useRunList("wf_1", "all"), { wrapper: withClient() });
    await waitFor(() => expect(result.current.data?.map((r) => r.status)).toEqual(["succeeded", "failed"]));
    expect(asked).toEqual(["GET /api/workflows/wf_1/runs?limit=50"]);
  });
});

describe("useSaveWorkflow", () => {
  it("reads the paged workflows list again, so the list shows the saved name", async () => {
    let name = "Untitled workflow";
    const workflow = () => ({ id: "wf_1", name, graph });
    serve((method, url, body) => {
      if (method === "GET" && url === "/api/workflows?limit=50")
        return { data: [workflow()], has_more: false, next_cursor: null };
      if (method === "PATCH" && url === "/api/workflows/wf_1") {
        name = (body as { name: string }).name;
        return workflow();
      }
      return undefined;
    });
    const { result } = renderHook(() => ({ list: useWorkflowList(), save: useSaveWorkflow("wf_1") }), {
      wrapper: withClient(),
    });
    await waitFor(() => expect(result.current.list.data?.[0]?.name).toBe("Untitled workflow"));

    await act(() => result.current.save.mutateAsync({ name: "Triage", graph, ifMatch: undefined }));
    await waitFor(() => expect(result.current.list.data?.[0]?.name).toBe("Triage"));
  });
});
