import { ApiError, type ApiErrorBody } from "../api/client.ts";
import type { KnowledgeDocument } from "./queries.ts";

/**
 * Uploads one file into a knowledge base as multipart, reporting bytes sent. XMLHttpRequest rather
 * than fetch: fetch has no upload progress. Resolves with the queued document; a refusal (409
 * duplicate, 413, 415, 422) rejects with the API's message, like `api()` does.
 *
 * @example await uploadDocument({ knowledgeBaseId: "kb_1", file, onProgress: (sent, total) => {}, signal });
 */
export function uploadDocument({
  knowledgeBaseId,
  file,
  chunking,
  onProgress,
  signal,
}: {
  knowledgeBaseId: string;
  file: File;
  /** Tokens per chunk and shared between chunks; the server's defaults when absent. */
  chunking?: { size: number; overlap: number } | undefined;
  onProgress: (sent: number, total: number) => void;
  signal: AbortSignal;
}): Promise<KnowledgeDocument> {
  return new Promise((resolve, reject) => {
    const form = new FormData();
    // The fields go before the file, so the server knows the base before the bytes arrive.
    form.append("knowledge_base_id", knowledgeBaseId);
    if (chunking) {
      form.append("chunk_size", String(chunking.size));
      form.append("chunk_overlap", String(chunking.overlap));
    }
    form.append("file", file, file.name);
    const request = new XMLHttpRequest();
    request.open("POST", "/api/rag/upload");
    request.setRequestHeader("accept", "application/json");
    request.upload.onprogress = (event) => {
      if (event.lengthComputable) onProgress(event.loaded, event.total);
    };
    request.onload = () => {
      let body: unknown = null;
      try {
        body = request.responseText ? JSON.parse(request.responseText) : null;
      } catch {
        // A proxy's HTML error page: fall through to the status message.
      }
      if (request.status >= 200 && request.status < 300) {
        resolve(body as KnowledgeDocument);
        return;
      }
      const error = (body as Partial<ApiErrorBody> | null)?.error;
      reject(
        new ApiError(
          request.status,
          error?.code ?? "http_error",
          error?.message ?? `The server answered ${request.status}.`,
          error?.details ?? [],
        ),
      );
    };
    request.onerror = () =>
      reject(new ApiError(0, "network_error", "The upload was interrupted: check your connection."));
    request.onabort = () => reject(new DOMException("The upload was cancelled.", "AbortError"));
    signal.addEventListener("abort", () => request.abort(), { once: true });
    request.send(form);
  });
}
