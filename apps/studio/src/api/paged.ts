import { type InfiniteData, type QueryKey, useInfiniteQuery } from "@tanstack/react-query";
import { api, type Page } from "./client.ts";

/** Items per page of the studio's lists: a screenful, the rest behind "Load more". */
export const LIST_PAGE_SIZE = 50;

/**
 * `path` with the page size and, after the first page, the cursor the last page gave.
 *
 * @example pagePath("/api/agents", 50, "agt_1") // "/api/agents?limit=50&cursor=agt_1"
 */
export function pagePath(path: string, limit: number, cursor: string): string {
  const separator = path.includes("?") ? "&" : "?";
  return `${path}${separator}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
}

/**
 * `path` searched for `q` (`?q=`, which lists of named things take); `path` itself without one.
 *
 * @example searchPath("/api/agents", "refund") // "/api/agents?q=refund"
 */
export function searchPath(path: string, q: string): string {
  if (!q) return path;
  return `${path}${path.includes("?") ? "&" : "?"}q=${encodeURIComponent(q)}`;
}

/**
 * A cursor-paged list read a page at a time: `data` is the items loaded so far, in the API's order;
 * `hasNextPage`/`fetchNextPage` load the next page while the API says `has_more` (see `LoadMore`).
 * Invalidating `queryKey` reads the loaded pages again.
 *
 * @example const agents = usePagedList<Agent>(["agents", "list"], "/api/agents"); agents.data?.length
 */
export function usePagedList<T>(
  queryKey: QueryKey,
  path: string,
  options: {
    pageSize?: number;
    /** How often to read the loaded pages again, from what they hold; false to stop. */
    refetchInterval?: (pages: InfiniteData<Page<T>, string> | undefined) => number | false;
  } = {},
) {
  const pageSize = options.pageSize ?? LIST_PAGE_SIZE;
  const refetchInterval = options.refetchInterval;
  return useInfiniteQuery<Page<T>, Error, T[], QueryKey, string>({
    queryKey,
    queryFn: ({ pageParam, signal }) => api<Page<T>>(pagePath(path, pageSize, pageParam), { signal }),
    initialPageParam: "",
    getNextPageParam: (last) => (last.has_more && last.next_cursor ? last.next_cursor : undefined),
    select: (data) => data.pages.flatMap((page) => page.data),
    refetchInterval: refetchInterval ? (query) => refetchInterval(query.state.data) : false,
  });
}
