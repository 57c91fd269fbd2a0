import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api, type Page } from "../api/client.ts";

export type Kind = "image" | "video";
export type GenerationStatus = "starting" | "processing" | "succeeded" | "failed" | "canceled";

export interface Generation {
  id: string;
  kind: Kind;
  model: string;
  status: GenerationStatus;
  input: Record<string, unknown>;
  outputs: { file_id: string; url: string; content_type: string; size_bytes: number }[];
  error: string | null;
  metrics: { predict_time?: number; total_time?: number };
  created_at: string;
  completed_at: string | null;
}

export interface ReplicateModel {
  id: string;
  description: string;
  run_count: number | null;
  cover_image_url: string | null;
}

export interface ModelInput {
  name: string;
  type: "string" | "integer" | "number" | "boolean" | "array" | "object" | null;
  title: string;
  description: string;
  format: string | null;
  default: unknown;
  enum: unknown[] | null;
  minimum: number | null;
  maximum: number | null;
  is_required: boolean;
}

export const isGenerationFinished = (generation: Pick<Generation, "status">) =>
  generation.status !== "starting" && generation.status !== "processing";

/** How often the gallery is read again while a generation is still running. */
const GALLERY_POLL_MS = 1500;
const GALLERY_PAGE = 24;

export function useModels(kind: Kind, query: string) {
  return useQuery({
    queryKey: ["replicate-models", kind, query],
    queryFn: () =>
      api<{ data: ReplicateModel[]; source: "replicate" | "curated" }>(
        `/api/replicate/models?type=${kind}${query ? `&query=${encodeURIComponent(query)}` : ""}`,
      ),
    staleTime: 10 * 60_000,
    // While a search is typed the last list stays up; another kind's list must not.
    placeholderData: (previous, previousQuery) =>
      previousQuery?.queryKey[1] === kind ? previous : undefined,
  });
}

export function useModelInputs(model: string) {
  return useQuery({
    queryKey: ["replicate-models", "inputs", model],
    queryFn: () => api<{ model: string; inputs: ModelInput[] | null }>(`/api/replicate/models/${model}`),
    enabled: /^[^/\s]+\/[^/\s]+$/.test(model),
    staleTime: 10 * 60_000,
  });
}

export const generationsKey = (kind: Kind | "all") => ["generations", kind] as const;

/** The gallery, newest first, read again while any generation on it is starting or processing. */
export function useGenerations(kind: Kind | "all") {
  return useInfiniteQuery({
    queryKey: generationsKey(kind),
    queryFn: ({ pageParam }) =>
      api<Page<Generation>>(
        `/api/generations?limit=${GALLERY_PAGE}${kind === "all" ? "" : `&kind=${kind}`}${
          pageParam ? `&cursor=${encodeURIComponent(pageParam)}` : ""
        }`,
      ),
    initialPageParam: "",
    getNextPageParam: (last) => last.next_cursor ?? undefined,
    refetchInterval: (query) =>
      query.state.data?.pages.some((page) =>
        page.data.some((generation) => !isGenerationFinished(generation)),
      )
        ? GALLERY_POLL_MS
        : false,
  });
}

export function useGenerate() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ kind, ...body }: { kind: Kind; model: string; input: Record<string, unknown> }) =>
      api<Generation>(`/api/replicate/generate/${kind}`, { json: body }),
    onSuccess: () => client.invalidateQueries({ queryKey: ["generations"] }),
  });
}

export function useCancelGeneration() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api<Generation>(`/api/generations/${id}/cancel`, { method: "POST" }),
    onSettled: () => client.invalidateQueries({ queryKey: ["generations"] }),
  });
}

export function useDeleteGeneration() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api<void>(`/api/generations/${id}`, { method: "DELETE" }),
    onSuccess: () => client.invalidateQueries({ queryKey: ["generations"] }),
  });
}
