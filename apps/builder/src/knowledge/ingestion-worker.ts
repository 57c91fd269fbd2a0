import { type Clock, newId, pollLoop } from "@app/core";
import type { Logger } from "@app/http";
import { and, eq } from "drizzle-orm";
import type { BuilderConfig } from "../config.ts";
import type { BuilderDb } from "../db/index.ts";
import type { DeliveryNotifier } from "../events/emit-event.ts";
import type { Storage } from "../storage/storage.ts";
import { claimDocument } from "./claim-document.ts";
import { EmbeddingError } from "./embedders.ts";
import { emitDocumentEvent } from "./emit-document-event.ts";
import { fencedUpdate, ingestDocument, LeaseLostError } from "./ingest-document.ts";
import { refreshPlannerStatistics } from "./lexical-index.ts";
import { createLocalEmbedderThread, DEFAULT_EMBEDDER_THREAD_MEMORY_MB } from "./local-embedder-thread.ts";
import { DocumentParseError } from "./parse-document.ts";
import type { ProgressEvents } from "./progress-events.ts";
import type { DocumentRow } from "./schema.ts";
import { knowledgeChunks, knowledgeDocuments } from "./schema.ts";

export interface IngestionWorkerOptions {
  /** How long a claim lasts without a heartbeat; a dead worker's documents are taken over after it. */
  leaseMs: number;
  /** Attempts (claims) before a document that keeps failing transiently is marked `failed`. */
  maxAttempts: number;
  /** First retry delay; doubled per attempt up to `maxRetryDelayMs`. */
  retryBaseMs: number;
  maxRetryDelayMs: number;
  /** Longest sleep between polls when there is nothing to do (an upload in this process wakes it at once). */
  maxIdleMs: number;
  /** The heap of the local embedder's thread (a document it cannot embed within it fails with that reason). */
  embedderThreadMemoryMb: number;
}

export const DEFAULT_INGESTION_OPTIONS: IngestionWorkerOptions = {
  leaseMs: 60_000,
  maxAttempts: 6,
  retryBaseMs: 2_000,
  maxRetryDelayMs: 5 * 60_000,
  maxIdleMs: 1_000,
  embedderThreadMemoryMb: DEFAULT_EMBEDDER_THREAD_MEMORY_MB,
};

const MIN_IDLE_MS = 50;

export interface IngestionWorker {
  start(): Promise<void>;
  /** Stops polling, aborts the document in progress and releases its lease for the next start. */
  stop(): Promise<void>;
  /** Polls now (after an upload in this process). */
  wake(): void;
}

type WorkerDeps = {
  db: BuilderDb;
  clock: Clock;
  logger: Logger;
  config: BuilderConfig;
  storage: Storage;
  events?: ProgressEvents | undefined;
  /** Woken after a `document.*` event is committed. */
  deliveries?: DeliveryNotifier | undefined;
};

/**
 * The durable ingestion worker inside the builder process. Work lives in the documents table, so
 * an upload survives a restart and several processes can share the queue; a transient embedding
 * error (rate limit, 5xx, network) is retried with exponential backoff on the injected clock, a
 * permanent one (unreadable file, refused key) marks the document `failed` with the reason and
 * removes its chunks.
 *
 * @example const worker = createIngestionWorker(deps); await worker.start(); worker.wake();
 */
export function createIngestionWorker(
  deps: WorkerDeps,
  options: Partial<IngestionWorkerOptions> = {},
): IngestionWorker {
  const settings = { ...DEFAULT_INGESTION_OPTIONS, ...options };
  const owner = newId("wrk");
  const lease = { owner, leaseMs: settings.leaseMs };
  let isStarted = false;
  let current: AbortController | undefined;
  // Started by the first document embedded with `local`, ended once the worker has been idle a while.
  const localEmbedder = createLocalEmbedderThread({ memoryMb: settings.embedderThreadMemoryMb });

  const runOne = async (document: DocumentRow) => {
    const controller = new AbortController();
    current = controller;
    // The lease must outlive long parses (a large PDF) as well as slow provider calls.
    const heartbeat = setInterval(
      () => {
        // A missed beat is retried at the next one; if the lease runs out meanwhile, the fenced
        // writes of this attempt stop and another worker resumes the document.
        fencedUpdate(deps, document.id, lease, {}).catch((error: unknown) =>
          deps.logger.warn({ err: error, document_id: document.id }, "ingestion heartbeat failed"),
        );
      },
      Math.max(1_000, Math.floor(settings.leaseMs / 3)),
    );
    try {
      await ingestDocument(
        { ...deps, localEmbedder, onProgress: (event) => deps.events?.publish(event) },
        document,
        lease,
        controller.signal,
      );
      deps.logger.info({ document_id: document.id }, "document ingested");
    } catch (error) {
      if (controller.signal.aborted || error instanceof LeaseLostError) return;
      await recordFailure(deps, settings, lease, document, error);
      return;
    } finally {
      clearInterval(heartbeat);
      current = undefined;
    }
    // After the ready transaction, and never the document's failure: statistics only speed searches up.
    await refreshPlannerStatistics(deps.db, deps.clock.now()).catch((error: unknown) =>
      deps.logger.warn({ err: error }, "gathering planner statistics failed"),
    );
  };

  const loop = pollLoop({
    work: async () => {
      const document = await claimDocument(deps, lease);
      if (!document) return "idle";
      await runOne(document);
      return "busy";
    },
    minIdleMs: MIN_IDLE_MS,
    maxIdleMs: settings.maxIdleMs,
    onError: (error) => deps.logger.error({ err: error }, "claiming a document failed"),
  });

  return {
    async start() {
      isStarted = true;
      loop.start();
    },
    async stop() {
      if (!isStarted) return;
      isStarted = false;
      current?.abort();
      // Before waiting for the loop: a document waiting on the thread then ends at once.
      await localEmbedder.stop();
      await loop.stop();
      // Give the document back now rather than after the lease expires, so a restart resumes it at once.
      await deps.db
        .update(knowledgeDocuments)
        .set({ leaseOwner: null, leaseExpiresAt: null })
        .where(eq(knowledgeDocuments.leaseOwner, owner))
        .catch(() => undefined);
    },
    wake: loop.wake,
  };
}

async function recordFailure(
  deps: WorkerDeps,
  settings: IngestionWorkerOptions,
  lease: { owner: string; leaseMs: number },
  document: DocumentRow,
  error: unknown,
): Promise<void> {
  const { db, clock, logger } = deps;
  const isPermanent =
    error instanceof DocumentParseError || (error instanceof EmbeddingError && !error.isTransient);
  const reason = error instanceof Error ? error.message : String(error);
  const [latest] = await db
    .select({ attempts: knowledgeDocuments.attempts })
    .from(knowledgeDocuments)
    .where(eq(knowledgeDocuments.id, document.id));
  const attempts = latest?.attempts ?? document.attempts;
  if (!(error instanceof DocumentParseError || error instanceof EmbeddingError))
    logger.error({ err: error, document_id: document.id }, "ingestion failed unexpectedly");

  if (!isPermanent && attempts < settings.maxAttempts) {
    const delay = Math.min(settings.maxRetryDelayMs, settings.retryBaseMs * 2 ** Math.max(0, attempts - 1));
    logger.warn(
      { document_id: document.id, attempts, retry_in_ms: delay, reason },
      "ingestion will be retried",
    );
    await db
      .update(knowledgeDocuments)
      .set({ nextAttemptAt: new Date(clock.now().getTime() + delay), leaseOwner: null, leaseExpiresAt: null })
      .where(and(eq(knowledgeDocuments.id, document.id), eq(knowledgeDocuments.leaseOwner, lease.owner)));
    return;
  }
  const message = isPermanent ? reason : `Gave up after ${attempts} attempts: ${reason}`;
  logger.warn({ document_id: document.id, reason: message }, "ingestion failed");
  const isFailed = await db.transaction(async (tx) => {
    const [failed] = await tx
      .update(knowledgeDocuments)
      .set({
        status: "failed",
        error: message,
        chunkCount: 0,
        leaseOwner: null,
        leaseExpiresAt: null,
        updatedAt: clock.now(),
      })
      .where(and(eq(knowledgeDocuments.id, document.id), eq(knowledgeDocuments.leaseOwner, lease.owner)))
      .returning();
    if (!failed) return false;
    // A failed document keeps no chunks: nothing half-ingested is ever searchable.
    await tx.delete(knowledgeChunks).where(eq(knowledgeChunks.documentId, document.id));
    await emitDocumentEvent({ db: tx, clock }, failed);
    return true;
  });
  if (isFailed) deps.deliveries?.wake();
  deps.events?.publish({
    documentId: document.id,
    status: "failed",
    progress: document.progress,
    error: message,
  });
}
