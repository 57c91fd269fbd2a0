import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { allPages, api, type Page } from "../api/client.ts";
import { postEventStream, type ServerEvent } from "../api/sse.ts";
import type { ApiGraph } from "./graph.ts";

export interface Workflow {
  id: string;
  name: string;
  description: string;
  graph: ApiGraph;
  trigger_url: string;
  /** Served as a tool of the workspace's MCP endpoint, /api/mcp. */
  mcp_exposed: boolean;
  created_at: string;
  updated_at: string;
}

export interface GraphIssue {
  path: string;
  message: string;
  code?: string;
  node_id?: string;
  edge_id?: string;
}

export interface NodeRun {
  node_id: string;
  node_type: string;
  status: "running" | "succeeded" | "failed" | "skipped";
  step: number | null;
  inputs: unknown;
  outputs: Record<string, unknown> | null;
  error: { code: string; message: string } | null;
  elapsed_ms: number | null;
}

export interface Run {
  id: string;
  status: "running" | "succeeded" | "failed" | "cancelled";
  inputs: Record<string, unknown>;
  outputs: Record<string, unknown> | null;
  error: { code: string; message: string; node_id?: string } | null;
  started_at: string;
  elapsed_ms: number | null;
  nodes?: NodeRun[];
}

export function useWorkflows() {
  return useQuery({
    queryKey: ["workflows"],
    queryFn: () => allPages<Workflow>("/api/workflows"),
  });
}

/** One workflow's query, shared by the editor and the prefetch that starts while its code loads. */
export const workflowQuery = (id: string) => ({
  queryKey: ["workflows", id],
  queryFn: () => api<Workflow>(`/api/workflows/${id}`),
});

export function useWorkflow(id: string) {
  return useQuery(workflowQuery(id));
}

export function useTools() {
  return useQuery({
    queryKey: ["workflow-tools"],
    queryFn: () =>
      api<{ data: { name: string; description: string; outputs: string[] }[] }>("/api/workflows/tools"),
    staleTime: Number.POSITIVE_INFINITY,
  });
}

export function useRuns(workflowId: string) {
  return useQuery({
    queryKey: ["runs", workflowId],
    queryFn: () => api<Page<Run>>(`/api/workflows/${workflowId}/runs?limit=20`),
  });
}

export function useSaveWorkflow(id: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: { name: string; graph: ApiGraph }) =>
      api<Workflow>(`/api/workflows/${id}`, { method: "PATCH", json: input }),
    onSuccess: (saved) => {
      client.setQueryData(["workflows", id], saved);
      void client.invalidateQueries({ queryKey: ["workflows"], exact: true });
    },
  });
}

/** Serves the workflow over MCP or stops, at once (it is not part of the graph's unsaved changes). */
export function useExposeWorkflow(id: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (isExposed: boolean) =>
      api<Workflow>(`/api/workflows/${id}`, { method: "PATCH", json: { mcp_exposed: isExposed } }),
    onSuccess: (saved) => {
      client.setQueryData(["workflows", id], saved);
      void client.invalidateQueries({ queryKey: ["workflows"], exact: true });
    },
  });
}

export function validateGraph(graph: ApiGraph, signal: AbortSignal) {
  return api<{ valid: boolean; issues: GraphIssue[] }>("/api/workflows/validate", {
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
