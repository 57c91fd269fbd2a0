import { buffer } from "node:stream/consumers";
import { setImmediate } from "node:timers/promises";
import { type Clock, newId, toStorable, toStorableText } from "@app/core";
import { and, asc, eq, inArray, isNull, sql } from "drizzle-orm";
import type { BuilderConfig } from "../config.ts";
import type { BuilderDb } from "../db/index.ts";
import type { DeliveryNotifier } from "../events/emit-event.ts";
import type { Storage } from "../storage/storage.ts";
import { chunkSections } from "./chunk-text.ts";
import { EMBEDDING_BATCH_SIZE, EmbeddingError, embedderFor } from "./embedders.ts";
import { emitDocumentEvent } from "./emit-document-event.ts";
import type { DocumentFormat } from "./formats.ts";
import { indexDocumentTerms } from "./lexical-index.ts";
import { LOCAL_EMBEDDING_DIMENSIONS } from "./local-embedder.ts";
import type { LocalEmbedderThread } from "./local-embedder-thread.ts";
import { parseDocument } from "./parse-document.ts";
import type { ProgressEvent } from "./progress-events.ts";
import type { DocumentRow, KnowledgeBaseRow } from "./schema.ts";
import { knowledgeBases, knowledgeChunks, knowledgeDocuments } from "./schema.ts";
import { ensureVectorIndex, hasVectorSupport } from "./vector-index.ts";
import { vectorLiteral } from "./vector-literal.ts";

export type IngestDeps = {
  db: BuilderDb;
  clock: Clock;
  config: BuilderConfig;
  storage: Storage;
  /** Told every committed status or progress change (for progress streams in this process). */
  onProgress?: ((event: ProgressEvent) => void) | undefined;
  /** Woken after a `document.*` event is committed. */
  deliveries?: DeliveryNotifier | undefined;
  /** Where the `local` embedder runs during ingestion (off the thread of the embedded database). */
  localEmbedder: LocalEmbedderThread;
};
export type Lease = { owner: string; leaseMs: number };

/** Progress milestones: parsing and chunking take the first tenth, embedding the rest. */
const PARSING_PROGRESS = 5;
const CHUNKED_PROGRESS = 10;
const INSERT_BATCH_ROWS = 500;

/** Another worker took the document over (our lease expired) or it was deleted: stop quietly. */
export class LeaseLostError extends Error {
  override name = "LeaseLostError";
}

/**
 * Runs one claimed document to `ready`: parse and chunk it (status `parsing`), store the chunks,
 * embed those without a vector in batches (status `embedding`, progress saved per batch so a
 * retry or another worker resumes where this one stopped), then make them searchable. Every write
 * is fenced by the lease, so a worker that lost its lease cannot overwrite its successor's work.
 * Errors are thrown for the worker to classify (retry or fail).
 *
 * @example await ingestDocument(deps, claimed, { owner, leaseMs: 60_000 }, signal);
 */
export async function ingestDocument(
  deps: IngestDeps,
  document: DocumentRow,
  lease: Lease,
  signal: AbortSignal,
): Promise<void> {
  const hasVector = await hasVectorSupport(deps.db);
  if (document.status === "queued" || document.status === "parsing") {
    await parseAndStore(deps, document, lease, hasVector);
  }
  if (!hasVector) return;
  await embedChunks(deps, document, lease, signal);
}

async function parseAndStore(deps: IngestDeps, document: DocumentRow, lease: Lease, hasVector: boolean) {
  const { db, clock, storage } = deps;
  await fencedUpdate(deps, document.id, lease, { status: "parsing", progress: PARSING_PROGRESS });
  report(deps, document.id, "parsing", PARSING_PROGRESS);
  const bytes = await buffer(await storage.get(document.storageKey));
  const parsed = await parseDocument(document.format as DocumentFormat, new Uint8Array(bytes));
  const chunks = chunkSections(parsed.sections, {
    chunkSize: document.chunkSize,
    chunkOverlap: document.chunkOverlap,
  });
  const nowMs = clock.now().getTime();
  await db.transaction(async (tx) => {
    // Without pgvector there is nothing to embed: the chunks are searchable by full text at once.
    const updated = await fencedUpdate({ db: tx, clock }, document.id, lease, {
      status: hasVector ? "embedding" : "ready",
      progress: hasVector ? CHUNKED_PROGRESS : 100,
      chunkCount: chunks.length,
      pageCount: parsed.pageCount,
      ...(hasVector ? {} : { leaseOwner: null, leaseExpiresAt: null }),
    });
    if (!hasVector) await emitDocumentEvent({ db: tx, clock }, updated);
    // A retry after a crash mid-parse starts over, so earlier chunks of this document go first.
    await tx.delete(knowledgeChunks).where(eq(knowledgeChunks.documentId, document.id));
    for (let i = 0; i < chunks.length; i += INSERT_BATCH_ROWS) {
      const rows = chunks.slice(i, i + INSERT_BATCH_ROWS).map((chunk, j) => ({
        id: newId("chk", nowMs),
        position: i + j,
        // A PDF's or DOCX's extracted text can hold NUL, which PostgreSQL cannot store.
        text: toStorableText(chunk.text),
        char_start: chunk.start,
        char_end: chunk.end,
        page: chunk.page,
        heading_path: toStorable(chunk.headingPath),
        token_count: chunk.tokenCount,
      }));
      await tx.execute(sql`
        insert into knowledge_chunks (id, workspace_id, knowledge_base_id, document_id, position, text,
          char_start, char_end, page, heading_path, token_count)
        select r.id, ${document.workspaceId}, ${document.knowledgeBaseId}, ${document.id}, r.position, r.text,
          r.char_start, r.char_end, r.page, r.heading_path, r.token_count
        from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as r(id text, position int, text text,
          char_start int, char_end int, page int, heading_path jsonb, token_count int)`);
      // Lets sockets be read between two statements (see the embedding loop below); other queries
      // still wait for this transaction.
      await setImmediate();
    }
    if (!hasVector) await indexDocumentTerms(tx, document.id);
  });
  if (!hasVector) deps.deliveries?.wake();
  report(deps, document.id, hasVector ? "embedding" : "ready", hasVector ? CHUNKED_PROGRESS : 100);
}

async function embedChunks(deps: IngestDeps, document: DocumentRow, lease: Lease, signal: AbortSignal) {
  const { db } = deps;
  const [base] = await db
    .select()
    .from(knowledgeBases)
    .where(eq(knowledgeBases.id, document.knowledgeBaseId));
  if (!base) throw new LeaseLostError("the knowledge base was deleted");
  const embedBatch = await batchEmbedder(deps, document, base);
  let dimensions = base.embeddingDimensions;
  if (dimensions === null && base.embeddingProvider === "local")
    dimensions = await recordDimensions(db, base.id, LOCAL_EMBEDDING_DIMENSIONS);
  if (dimensions !== null) await ensureVectorIndex(db, dimensions);
  // Only the chunks' ids up front, and which still lack a vector (a retry resumes after the batches
  // saved); each batch's texts are read just before it is embedded, so a document at the upload
  // limit never holds all its text in memory at once.
  const chunkIds = await db
    .select({ id: knowledgeChunks.id, isPending: sql<boolean>`embedding is null` })
    .from(knowledgeChunks)
    .where(eq(knowledgeChunks.documentId, document.id))
    .orderBy(asc(knowledgeChunks.position));
  const pending = chunkIds.filter((chunk) => chunk.isPending);
  const total = chunkIds.length;
  let done = total - pending.length;
  const batches: string[][] = [];
  for (let i = 0; i < pending.length; i += EMBEDDING_BATCH_SIZE)
    batches.push(pending.slice(i, i + EMBEDDING_BATCH_SIZE).map((chunk) => chunk.id));

  // Pipelined: batch n + 1 is read and embedded (on the local embedder's thread, or by the
  // provider) while batch n is written, which is the embedded database's work on this thread. Its
  // read is sent before batch n's write, so it does not wait for it. One call at a time still, so a
  // provider sees the same sequence of requests as before.
  const stopEmbedding = new AbortController();
  const onAbort = () => stopEmbedding.abort(signal.reason);
  signal.addEventListener("abort", onAbort, { once: true });
  const readAndEmbed = async (ids: string[]) => {
    const chunks = await db
      .select({
        id: knowledgeChunks.id,
        text: knowledgeChunks.text,
        headingPath: knowledgeChunks.headingPath,
      })
      .from(knowledgeChunks)
      .where(inArray(knowledgeChunks.id, ids))
      .orderBy(asc(knowledgeChunks.position));
    // Chunks go only with their document (a re-parse runs under the lease too).
    if (chunks.length !== ids.length) throw new LeaseLostError(`the chunks of ${document.id} were deleted`);
    return { chunks, ...(await embedBatch(chunks.map(embeddingInput), stopEmbedding.signal)) };
  };
  const embed = (ids: string[]) => {
    const embedded = readAndEmbed(ids);
    // Awaited in the next turn of the loop; if the loop ends before (lease lost), it must not
    // become an unhandled rejection.
    embedded.catch(() => undefined);
    return embedded;
  };
  try {
    let next = batches[0] ? embed(batches[0]) : undefined;
    for (let i = 0; i < batches.length; i++) {
      const { chunks: batch, literals, width } = await (next as ReturnType<typeof embed>);
      // A stopping worker gives the document back rather than finish it (the thread ignores the signal).
      signal.throwIfAborted();
      const following = batches[i + 1];
      next = following ? embed(following) : undefined;
      if (literals.length !== batch.length)
        throw new EmbeddingError(
          "The embedding model answered an unexpected number or shape of vectors.",
          false,
        );
      if (dimensions === null) {
        dimensions = await recordDimensions(db, base.id, width);
        await ensureVectorIndex(db, dimensions);
      }
      if (width !== dimensions)
        throw new EmbeddingError(
          `The model returned ${width}-dimensional embeddings but this knowledge base holds ${dimensions}-dimensional ones.`,
          false,
        );
      done += batch.length;
      const rows = JSON.stringify(batch.map((chunk, j) => ({ id: chunk.id, e: literals[j] })));
      const progress = Math.min(
        99,
        CHUNKED_PROGRESS + Math.floor(((100 - CHUNKED_PROGRESS) * done) / Math.max(total, 1)),
      );
      await db.transaction(async (tx) => {
        await fencedUpdate({ db: tx, clock: deps.clock }, document.id, lease, {
          status: "embedding",
          progress,
        });
        // The width goes in with the vector, which puts the chunk into the HNSW index now, a batch
        // at a time: inserting into the graph is most of ingestion's work, and done all at once in the
        // ready transaction it held the embedded database (and every request) for seconds. Searches
        // skip chunks of documents that are not ready (`vectorRanking`).
        await tx.execute(sql`
          update knowledge_chunks set embedding = batch.e::vector, dimensions = ${width}::int
          from jsonb_to_recordset(${rows}::jsonb) as batch(id text, e text)
          where knowledge_chunks.id = batch.id`);
      });
      report(deps, document.id, "embedding", progress);
      // The embedded database answers within the same turn of the event loop, so without this the
      // whole document ran on promise callbacks alone and no socket was read until it was ready: an
      // upload arriving meanwhile waited for it (17 s for 5 MB). Each batch's HNSW insertion still
      // holds the thread, which is why batches stay small.
      await setImmediate();
    }
  } finally {
    signal.removeEventListener("abort", onAbort);
    stopEmbedding.abort();
  }

  await db.transaction(async (tx) => {
    // Chunks embedded by an earlier version, which set the width only here.
    if (dimensions !== null)
      await tx.execute(sql`update knowledge_chunks set dimensions = ${dimensions}::int
        where document_id = ${document.id} and dimensions is null and embedding is not null`);
    const ready = await fencedUpdate({ db: tx, clock: deps.clock }, document.id, lease, {
      status: "ready",
      progress: 100,
      error: null,
      leaseOwner: null,
      leaseExpiresAt: null,
    });
    // Its terms in the same transaction as its status: BM25's statistics never count half a
    // document, and vector search finds its chunks from this commit on.
    await indexDocumentTerms(tx, document.id);
    await emitDocumentEvent({ db: tx, clock: deps.clock }, ready);
  });
  deps.deliveries?.wake();
  report(deps, document.id, "ready", 100);
}

function report(
  deps: IngestDeps,
  documentId: string,
  status: ProgressEvent["status"],
  progress: number,
): void {
  deps.onProgress?.({ documentId, status, progress, error: null });
}

/** Embeds one batch of texts as pgvector literals, with their width. */
type BatchEmbedder = (texts: string[], signal: AbortSignal) => Promise<{ literals: string[]; width: number }>;

/**
 * The base's embedder for ingestion. `local` runs on its thread, which formats the literals too (6 %
 * of ingestion's main-thread CPU otherwise); a provider's vectors are checked and formatted here.
 */
async function batchEmbedder(
  deps: IngestDeps,
  document: DocumentRow,
  base: KnowledgeBaseRow,
): Promise<BatchEmbedder> {
  if (base.embeddingProvider === "local")
    return async (texts) => ({
      literals: await deps.localEmbedder.embed(texts),
      width: LOCAL_EMBEDDING_DIMENSIONS,
    });
  const embedder = await embedderFor(deps, document.workspaceId, {
    provider: base.embeddingProvider,
    model: base.embeddingModel,
  });
  return async (texts, signal) => {
    const vectors = await embedder.embed(texts, signal);
    const width = vectors[0]?.length ?? 0;
    if (vectors.length !== texts.length || width === 0 || vectors.some((vector) => vector.length !== width))
      throw new EmbeddingError(
        "The embedding model answered an unexpected number or shape of vectors.",
        false,
      );
    return { literals: vectors.map(vectorLiteral), width };
  };
}

/** Chunks are embedded with their heading path, which often names what a passage is about. */
function embeddingInput(chunk: { text: string; headingPath: string[] }): string {
  return chunk.headingPath.length > 0 ? `${chunk.headingPath.join(" > ")}\n\n${chunk.text}` : chunk.text;
}

async function recordDimensions(db: BuilderDb, knowledgeBaseId: string, width: number): Promise<number> {
  await db
    .update(knowledgeBases)
    .set({ embeddingDimensions: width })
    .where(and(eq(knowledgeBases.id, knowledgeBaseId), isNull(knowledgeBases.embeddingDimensions)));
  const [row] = await db
    .select({ dimensions: knowledgeBases.embeddingDimensions })
    .from(knowledgeBases)
    .where(eq(knowledgeBases.id, knowledgeBaseId));
  return row?.dimensions ?? width;
}

type DocumentChanges = Partial<
  Pick<
    typeof knowledgeDocuments.$inferInsert,
    "status" | "progress" | "error" | "chunkCount" | "pageCount" | "leaseOwner" | "leaseExpiresAt"
  >
>;

/**
 * Updates the document only while this worker holds its lease, extending the lease as a heartbeat.
 * Answers the document as updated.
 *
 * @example await fencedUpdate({ db, clock }, "doc_…", lease, { progress: 40 });
 */
export async function fencedUpdate(
  { db, clock }: { db: Pick<BuilderDb, "update">; clock: Clock },
  documentId: string,
  lease: Lease,
  changes: DocumentChanges,
): Promise<DocumentRow> {
  const now = clock.now();
  const [updated] = await db
    .update(knowledgeDocuments)
    .set({ leaseExpiresAt: new Date(now.getTime() + lease.leaseMs), ...changes, updatedAt: now })
    .where(and(eq(knowledgeDocuments.id, documentId), eq(knowledgeDocuments.leaseOwner, lease.owner)))
    .returning();
  if (!updated) throw new LeaseLostError(`lost the lease on ${documentId}`);
  return updated;
}
