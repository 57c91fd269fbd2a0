import { type QueryClient, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { allPages, api, apiWithEtag, type Page } from "../api/client.ts";
import { searchPath, usePagedList } from "../api/paged.ts";
import type { GraphValidation, Workflow, WorkflowRun } from "../api/schema.gen.ts";
import { postEventStream, type ServerEvent } from "../api/sse.ts";
import type { Answer } from "../api/types.ts";
import type { ApiGraph } from "./graph.ts";

export type { GraphIssue, Workflow } from "../api/schema.gen.ts";
/** A run, with its nodes when read one at a time (`GET /api/runs/{id}`). */
export type Run = WorkflowRun;
export type NodeRun = NonNullable<WorkflowRun["nodes"]>[number];
/** What a Code node's program printed; null for other nodes. */
export type NodeLogs = NonNullable<NodeRun["logs"]>;

/** Every workflow of the workspace, for pickers (a tool choosing its workflow). */
export function useWorkflows() {
  return useQuery({
    queryKey: ["workflows"],
    queryFn: () => allPages<Workflow>("/api/workflows"),
  });
}

/** The workflows screen's list, a page at a time. */
export function useWorkflowList(q = "") {
  return usePagedList<Workflow>(["workflows", "pages", q], searchPath("/api/workflows", q));
}

/** An answer with the revision it is (its `ETag`), which a change based on it sends back as `If-Match`. */
export type Tagged<T> = T & { etag?: string | undefined };

/** The workflow as saved now, with its revision. */
export async function fetchWorkflow(id: string): Promise<Tagged<Workflow>> {
  const { data, etag } = await apiWithEtag<Workflow>(`/api/workflows/${id}`);
  return { ...data, etag: etag ?? undefined };
}

/** One workflow's query, shared by the editor and the prefetch that starts while its code loads. */
export const workflowQuery = (id: string) => ({
  queryKey: ["workflows", id],
  queryFn: () => fetchWorkflow(id),
});

export function useWorkflow(id: string) {
  return useQuery<Tagged<Workflow>>(workflowQuery(id));
}

export function useTools() {
  return useQuery({
    queryKey: ["workflow-tools"],
    queryFn: () => api<Answer<"GET /api/workflows/tools">>("/api/workflows/tools"),
    staleTime: Number.POSITIVE_INFINITY,
  });
}

/** How many runs the editor's run panel lists; "All runs" pages through the rest. */
export const RECENT_RUNS = 10;

/** The latest runs of a workflow, for the editor's run panel. */
export function useRecentRuns(workflowId: string) {
  return useQuery({
    queryKey: ["runs", workflowId],
    queryFn: () => api<Page<Run>>(`/api/workflows/${workflowId}/runs?limit=${RECENT_RUNS}`),
  });
}

/** Statuses the runs page filters by; the API filters, so every page is full of the chosen one. */
export const RUN_FILTERS = ["all", "succeeded", "failed", "running", "waiting", "cancelled"] as const;
export type RunFilter = (typeof RUN_FILTERS)[number];

/** A workflow's runs, newest first, a page at a time, of one status or all. */
export function useRunList(workflowId: string, filter: RunFilter) {
  const path = `/api/workflows/${workflowId}/runs${filter === "all" ? "" : `?status=${filter}`}`;
  return usePagedList<Run>(["runs", workflowId, filter], path);
}

/** A change of the workflow, based on the revision `ifMatch` (412 when someone saved since). */
export async function patchWorkflow(
  id: string,
  json: unknown,
  ifMatch: string | undefined,
): Promise<Tagged<Workflow>> {
  const { data, etag } = await apiWithEtag<Workflow>(`/api/workflows/${id}`, {
    method: "PATCH",
    json,
    ifMatch,
  });
  return { ...data, etag: etag ?? undefined };
}

export function useSaveWorkflow(id: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({
      ifMatch,
      ...input
    }: {
      name: string;
      description?: string;
      graph: ApiGraph;
      ifMatch: string | undefined;
    }) => patchWorkflow(id, input, ifMatch),
    onSuccess: (saved) => {
      client.setQueryData(["workflows", id], saved);
      invalidateWorkflowLists(client);
    },
  });
}

/** Serves the workflow over MCP or stops, at once (it is not part of the graph's unsaved changes). */
export function useExposeWorkflow(id: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ isExposed, ifMatch }: { isExposed: boolean; ifMatch: string | undefined }) =>
      patchWorkflow(id, { mcp_exposed: isExposed }, ifMatch),
    onSuccess: (saved) => {
      client.setQueryData(["workflows", id], saved);
      invalidateWorkflowLists(client);
    },
  });
}

/**
 * Reads the workflow lists again after a save (the pickers' and the paged screen's), but not the
 * workflow just saved: its answer is already in the cache.
 */
function invalidateWorkflowLists(client: QueryClient) {
  void client.invalidateQueries({ queryKey: ["workflows"], exact: true });
  void client.invalidateQueries({ queryKey: ["workflows", "pages"] });
}

export function validateGraph(graph: ApiGraph, signal: AbortSignal) {
  return api<GraphValidation>("/api/workflows/validate", {
    json: { graph },
    signal,
  });
}

/** Starts a run and hands each Server-Sent Event (`run_started`, `node_finished`, …) to `onEvent`. */
export function streamRun(
  workflowId: string,
  inputs: Record<string, unknown>,
  onEvent: (event: ServerEvent) => void,
) {
  return postEventStream(`/api/workflows/${workflowId}/runs`, { inputs }, onEvent);
}
