// @vitest-environment happy-dom
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { act, cleanup, renderHook, waitFor } from "@testing-library/react";
import { createElement, type ReactNode } from "react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { pagePath, usePagedList } from "./paged.ts";

// Without vitest's globals, Testing Library does not unmount between tests by itself.
afterEach(cleanup);
afterEach(() => vi.unstubAllGlobals());

describe("pagePath", () => {
  it("asks for the first page with the page size only", () => {
    expect(pagePath("/api/agents", 50, "")).toBe("/api/agents?limit=50");
  });

  it("adds the cursor of the last page, encoded, after a path's own query", () => {
    expect(pagePath("/api/webhooks/wh_1/deliveries?status=failed", 20, "a b/c")).toBe(
      "/api/webhooks/wh_1/deliveries?status=failed&limit=20&cursor=a%20b%2Fc",
    );
  });
});

/** The API's answers by the URL the studio asks for, as the browser's fetch would give them. */
function serve(pages: Record<string, unknown>) {
  const asked: string[] = [];
  vi.stubGlobal("fetch", async (url: string) => {
    asked.push(url);
    const body = pages[url];
    return body === undefined
      ? new Response(JSON.stringify({ error: { code: "not_found", message: "no such page" } }), {
          status: 404,
        })
      : new Response(JSON.stringify(body), { status: 200 });
  });
  return asked;
}

function withClient() {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  return ({ children }: { children: ReactNode }) => createElement(QueryClientProvider, { client }, children);
}

describe("usePagedList", () => {
  it("shows the first page, loads the next on demand, and stops when the API says there is no more", async () => {
    const asked = serve({
      "/api/agents?limit=2": { data: [{ id: "a4" }, { id: "a3" }], has_more: true, next_cursor: "a3" },
      "/api/agents?limit=2&cursor=a3": {
        data: [{ id: "a2" }, { id: "a1" }],
        has_more: false,
        next_cursor: "a1",
      },
    });
    const { result } = renderHook(
      () => usePagedList<{ id: string }>(["agents", "pages"], "/api/agents", { pageSize: 2 }),
      {
        wrapper: withClient(),
      },
    );
    await waitFor(() => expect(result.current.data?.map((agent) => agent.id)).toEqual(["a4", "a3"]));
    expect(result.current.hasNextPage).toBe(true);

    await act(() => result.current.fetchNextPage());
    await waitFor(() =>
      expect(result.current.data?.map((agent) => agent.id)).toEqual(["a4", "a3", "a2", "a1"]),
    );
    // A last page may still carry a cursor: has_more decides, so nothing asks past the end.
    expect(result.current.hasNextPage).toBe(false);
    expect(asked).toEqual(["/api/agents?limit=2", "/api/agents?limit=2&cursor=a3"]);
  });
});
