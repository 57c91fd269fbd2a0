import type { DocumentStatus } from "./knowledge-json.ts";

/** A document's ingestion state as the worker commits it. */
export interface ProgressEvent {
  documentId: string;
  status: DocumentStatus;
  progress: number;
  error: string | null;
}

export interface ProgressEvents {
  publish(event: ProgressEvent): void;
  /** Calls `listener` for the document's events until the returned function is called. */
  subscribe(documentId: string, listener: (event: ProgressEvent) => void): () => void;
}

/**
 * In-process fan-out of ingestion progress, so a progress stream in the worker's own process sees
 * every step (a fast `parsing` included) instead of what a poll happens to catch. Streams still
 * poll the database too, for workers in other processes.
 *
 * @example const events = createProgressEvents(); const stop = events.subscribe("doc_…", console.log);
 */
export function createProgressEvents(): ProgressEvents {
  const listeners = new Map<string, Set<(event: ProgressEvent) => void>>();
  return {
    publish(event) {
      for (const listener of listeners.get(event.documentId) ?? []) listener(event);
    },
    subscribe(documentId, listener) {
      const set = listeners.get(documentId) ?? new Set();
      set.add(listener);
      listeners.set(documentId, set);
      return () => {
        set.delete(listener);
        if (set.size === 0) listeners.delete(documentId);
      };
    },
  };
}
