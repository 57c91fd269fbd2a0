import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { allPages, api } from "../api/client.ts";
import { usePagedList } from "../api/paged.ts";
import type { Agent, Answer } from "../api/types.ts";
import { useDelete } from "../api/use-delete.ts";

export function useProviders() {
  return useQuery({
    queryKey: ["providers"],
    queryFn: () => api<Answer<"GET /api/providers">>("/api/providers"),
    staleTime: Number.POSITIVE_INFINITY,
  });
}

/** Every agent of the workspace, for lookups and pickers. */
export function useAgents() {
  return useQuery({ queryKey: ["agents"], queryFn: () => allPages<Agent>("/api/agents") });
}

/** The agents screen's list, a page at a time. */
export function useAgentList() {
  return usePagedList<Agent>(["agents", "pages"], "/api/agents");
}

export function useAgent(id: string | undefined) {
  return useQuery({
    queryKey: ["agents", id],
    queryFn: () => api<Agent>(`/api/agents/${id}`),
    enabled: id !== undefined,
  });
}

export type AgentInput = Pick<
  Agent,
  | "name"
  | "description"
  | "provider"
  | "model"
  | "instructions"
  | "temperature"
  | "memory_turns"
  | "mcp_exposed"
> & { tools?: unknown[]; knowledge_base_ids?: string[] };

export function useSaveAgent(id: string | undefined) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: AgentInput) =>
      id
        ? api<Agent>(`/api/agents/${id}`, { method: "PATCH", json: input })
        : api<Agent>("/api/agents", { json: input }),
    onSuccess: () => client.invalidateQueries({ queryKey: ["agents"] }),
  });
}

export function useDeleteAgent() {
  return useDelete("/api/agents", ["agents"]);
}
