import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api, type Page } from "../api/client.ts";
import type {
  Generation,
  ReplicateModelInput as ModelInput,
  ReplicateModel,
  ReplicateModelInputs,
  ReplicateModelList,
} from "../api/schema.gen.ts";
import { useDelete } from "../api/use-delete.ts";

export type { Generation, ModelInput, ReplicateModel };
export type Kind = Generation["kind"];
export type GenerationStatus = Generation["status"];

export const isGenerationFinished = (generation: Pick<Generation, "status">) =>
  generation.status !== "starting" && generation.status !== "processing";

/** How often the gallery is read again while a generation is still running. */
const GALLERY_POLL_MS = 1500;
const GALLERY_PAGE = 24;

export function useModels(kind: Kind, query: string) {
  return useQuery({
    queryKey: ["replicate-models", kind, query],
    queryFn: () =>
      api<ReplicateModelList>(
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
    queryFn: () => api<ReplicateModelInputs>(`/api/replicate/models/${model}`),
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
  return useDelete("/api/generations", ["generations"]);
}
