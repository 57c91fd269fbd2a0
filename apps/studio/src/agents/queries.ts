import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { allPages, api, apiWithEtag } from "../api/client.ts";
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

/** An agent with the revision it is (its `ETag`), which a change based on it sends back as `If-Match`. */
export type TaggedAgent = Agent & { etag?: string | undefined };

/** The agent as saved now, with its revision. */
export async function fetchAgent(id: string): Promise<TaggedAgent> {
  const { data, etag } = await apiWithEtag<Agent>(`/api/agents/${id}`);
  return { ...data, etag: etag ?? undefined };
}

/** A change of the agent, based on the revision `ifMatch` (412 when someone saved since). */
export async function patchAgent(
  id: string,
  input: unknown,
  ifMatch: string | undefined,
): Promise<TaggedAgent> {
  const { data, etag } = await apiWithEtag<Agent>(`/api/agents/${id}`, {
    method: "PATCH",
    json: input,
    ifMatch,
  });
  return { ...data, etag: etag ?? undefined };
}

export function useAgent(id: string | undefined) {
  return useQuery<TaggedAgent>({
    queryKey: ["agents", id],
    queryFn: () => fetchAgent(id as string),
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
    mutationFn: async ({
      ifMatch,
      ...input
    }: AgentInput & { ifMatch?: string | undefined }): Promise<TaggedAgent> => {
      if (id) return patchAgent(id, input, ifMatch);
      const { data, etag } = await apiWithEtag<Agent>("/api/agents", { json: input });
      return { ...data, etag: etag ?? undefined };
    },
    onSuccess: (saved) => {
      client.setQueryData(["agents", saved.id], saved);
      void client.invalidateQueries({ queryKey: ["agents"], exact: true });
      void client.invalidateQueries({ queryKey: ["agents", "pages"] });
    },
  });
}

export function useDeleteAgent() {
  return useDelete("/api/agents", ["agents"]);
}
