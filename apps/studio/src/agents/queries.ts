import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { allPages, api, apiWithEtag } from "../api/client.ts";
import { searchPath, usePagedList } from "../api/paged.ts";
import type { Agent, Answer } from "../api/types.ts";
import { useDelete } from "../api/use-delete.ts";
import type { AgentTemplate } from "./templates.ts";

export function useProviders() {
  return useQuery({
    queryKey: ["providers"],
    queryFn: () => api<Answer<"GET /api/providers">>("/api/providers"),
    staleTime: Number.POSITIVE_INFINITY,
  });
}

/**
 * A provider's models: the catalogue merged with what the provider lists for the workspace's key
 * (the listing a credential's test makes), those the key can reach first.
 */
export function useProviderModels(providerId: string | undefined) {
  return useQuery({
    queryKey: ["providers", providerId, "models"],
    queryFn: () =>
      api<Answer<"GET /api/providers/{id}/models">>(
        `/api/providers/${encodeURIComponent(providerId ?? "")}/models`,
      ),
    enabled: Boolean(providerId),
    staleTime: 5 * 60_000,
    select: (answer) => ({
      ...answer,
      // A model the key lists comes first: it is one the key can use; the catalogue's may not be served.
      data: [...answer.data].sort(
        (a, b) => Number(a.source === "catalogue") - Number(b.source === "catalogue"),
      ),
    }),
  });
}

/** A model that can chat: the catalogue says so, or only the provider's listing knows it (capabilities unknown). */
export function isChatModel(model: { capabilities: string[] }): boolean {
  return model.capabilities.length === 0 || model.capabilities.includes("chat");
}

/**
 * What a new agent or template's LLM node runs on: the provider the workspace has a key for (the
 * API's `default_provider`) with the first chat model its key lists; undefined while loading or
 * when no key is set up (then the API's own default, and a "no key" note, apply).
 */
export function useDefaultModel(): { provider: string; model: string } | undefined {
  const providers = useProviders();
  const provider = providers.data?.default_provider ?? undefined;
  const models = useProviderModels(provider);
  const model = models.data?.data.find(isChatModel)?.id;
  return provider && model ? { provider, model } : undefined;
}

/** Every agent of the workspace, for lookups and pickers. */
export function useAgents() {
  return useQuery({ queryKey: ["agents"], queryFn: () => allPages<Agent>("/api/agents") });
}

/** The agents screen's list, a page at a time. */
export function useAgentList(q = "") {
  return usePagedList<Agent>(["agents", "pages", q], searchPath("/api/agents", q));
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

/**
 * Creates an agent from a template (with its sample knowledge base and document first, when it has
 * one) on the workspace's own provider: provider and model are left for the server to choose.
 */
export function useCreateFromTemplate() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (template: AgentTemplate) => {
      const knowledgeBaseIds: string[] = [];
      if (template.sampleKnowledge) {
        const sample = template.sampleKnowledge;
        const base = await api<{ id: string }>("/api/knowledge-bases", { json: { name: sample.name } });
        const form = new FormData();
        form.set("knowledge_base_id", base.id);
        form.set("file", new Blob([sample.text], { type: "text/markdown" }), sample.documentName);
        await api("/api/rag/upload", { body: form });
        knowledgeBaseIds.push(base.id);
      }
      return api<Agent>("/api/agents", {
        json: {
          name: template.name,
          description: template.description,
          instructions: template.instructions,
          tools: template.tools,
          knowledge_base_ids: knowledgeBaseIds,
        },
      });
    },
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: ["agents"] });
      void client.invalidateQueries({ queryKey: ["knowledge-bases"] });
    },
  });
}
