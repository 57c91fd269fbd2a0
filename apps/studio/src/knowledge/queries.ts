import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { allPages, api, type Page } from "../api/client.ts";
import { searchPath, usePagedList } from "../api/paged.ts";
import type {
  KnowledgeChunk as Chunk,
  KnowledgeBase,
  KnowledgeDocument,
  KnowledgeSearchAnswer,
  KnowledgeSearchResult as SearchHit,
  SearchKnowledgeBaseRequest,
} from "../api/schema.gen.ts";
import { useDelete } from "../api/use-delete.ts";

export type { Chunk, KnowledgeBase, KnowledgeDocument, SearchHit };

export type DocumentStatus = KnowledgeDocument["status"];
export type SearchMode = NonNullable<SearchKnowledgeBaseRequest["mode"]>;

export const isDocumentFinished = (document: Pick<KnowledgeDocument, "status">) =>
  document.status === "ready" || document.status === "failed";

/** How often the documents list is read again while a document is still being ingested. */
const INGESTION_POLL_MS = 1000;

/** Every knowledge base of the workspace, for pickers (agents' tools, Knowledge nodes). */
export function useKnowledgeBases() {
  return useQuery({
    queryKey: ["knowledge-bases"],
    queryFn: () => allPages<KnowledgeBase>("/api/knowledge-bases"),
  });
}

/** The knowledge bases screen's list, a page at a time. */
export function useKnowledgeBaseList(q = "") {
  return usePagedList<KnowledgeBase>(["knowledge-bases", "pages", q], searchPath("/api/knowledge-bases", q));
}

export function useKnowledgeBase(id: string) {
  return useQuery({
    queryKey: ["knowledge-bases", id],
    queryFn: () => api<KnowledgeBase>(`/api/knowledge-bases/${id}`),
  });
}

export function useCreateKnowledgeBase() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: {
      name: string;
      description: string;
      embedding: { provider: string; model: string };
    }) => api<KnowledgeBase>("/api/knowledge-bases", { json: input }),
    onSuccess: () => client.invalidateQueries({ queryKey: ["knowledge-bases"] }),
  });
}

export function useDeleteKnowledgeBase() {
  return useDelete("/api/knowledge-bases", ["knowledge-bases"]);
}

export const documentsKey = (baseId: string) => ["knowledge-bases", baseId, "documents"] as const;

/**
 * The base's documents, read again every second while any is still queued, parsing or embedding.
 * One list poll rather than a progress stream per document: a browser holds at most six connections
 * to a host, and a batch of uploads would otherwise starve every other request.
 */
export function useDocuments(baseId: string) {
  return usePagedList<KnowledgeDocument>(documentsKey(baseId), `/api/knowledge-bases/${baseId}/documents`, {
    refetchInterval: (data) =>
      data?.pages.some((page) => page.data.some((document) => !isDocumentFinished(document)))
        ? INGESTION_POLL_MS
        : false,
  });
}

export function useDocument(id: string) {
  return useQuery({
    queryKey: ["documents", id],
    queryFn: () => api<KnowledgeDocument>(`/api/rag/documents/${id}`),
  });
}

export function useDeleteDocument(baseId: string) {
  return useDelete("/api/rag/documents", documentsKey(baseId));
}

/** A document's chunks in order, a page at a time (`pageSize` up to 100, the API's limit). */
export function useChunks(documentId: string, pageSize = 20) {
  return useInfiniteQuery({
    queryKey: ["documents", documentId, "chunks", pageSize],
    queryFn: ({ pageParam }) =>
      api<Page<Chunk>>(
        `/api/rag/documents/${documentId}/chunks?limit=${pageSize}${pageParam ? `&cursor=${encodeURIComponent(pageParam)}` : ""}`,
      ),
    initialPageParam: "",
    getNextPageParam: (last) => last.next_cursor ?? undefined,
  });
}

export function useSearch(baseId: string) {
  return useMutation({
    mutationFn: (input: { query: string; mode: SearchMode; top_k: number; min_score?: number }) =>
      api<KnowledgeSearchAnswer>(`/api/knowledge-bases/${baseId}/search`, { json: input }),
  });
}
