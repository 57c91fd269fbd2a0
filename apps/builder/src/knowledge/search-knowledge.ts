import type { Clock } from "@app/core";
import { queryRows } from "@app/db";
import { and, eq, inArray, type SQL, sql } from "drizzle-orm";
import type { BuilderConfig } from "../config.ts";
import type { BuilderDb } from "../db/index.ts";
import type { SearchMode } from "./contract.ts";
import { EmbeddingError, embedderFor } from "./embedders.ts";
import { KnowledgeErrors } from "./errors.ts";
import { bm25Ranking, bm25RankingOf, questionTerms, type ScoredTerm, wordIdf } from "./lexical-index.ts";
import { LOCAL_EMBEDDING_DIMENSIONS, localEmbedding, tokenize } from "./local-embedder.ts";
import { type RerankSetting, rerankCandidates, rerankTexts } from "./rerank.ts";
import type { KnowledgeBaseRow } from "./schema.ts";
import { knowledgeBases, knowledgeChunks, knowledgeDocuments } from "./schema.ts";
import { hasVectorSupport } from "./vector-index.ts";
import { vectorLiteral } from "./vector-literal.ts";

/**
 * Reciprocal rank fusion constant (Cormack et al., SIGIR 2009). 60 is the usual choice; 10 lets
 * the top of each list count more than its tail, which ranked better on both bench sets (docs).
 */
export const RRF_K = 10;
/**
 * The weight of a local (feature-hashing) vector ranking in hybrid search, against 1 for BM25.
 * Chosen on the bench's Perl FAQ and synthetic sets: the local embedder matches word forms that BM25
 * misses but ranks worse overall, and at equal weight it pulled hybrid below full text alone. A
 * provider model's ranking keeps weight 1.
 */
export const LOCAL_VECTOR_WEIGHT = 0.05;
/**
 * In `vector` mode, the weight of the BM25 ranking fused with a local (feature-hashing) vector
 * ranking (weight 1). Feature hashing has no notion of meaning and, alone, ranked below
 * whole-document BM25 on paraphrases; anchored this way the mode ranks above it on every set
 * measured while the vectors still lead (misspellings, word forms). A provider model's `vector`
 * mode is its own ranking alone. Chosen on the bench (docs).
 */
export const LOCAL_VECTOR_LEXICAL_WEIGHT = 1;

export interface KnowledgeHit {
  chunkId: string;
  documentId: string;
  documentName: string;
  knowledgeBaseId: string;
  position: number;
  page: number | null;
  headingPath: string[];
  text: string;
  score: number;
}

export interface SearchRequest {
  knowledgeBaseIds: readonly string[];
  query: string;
  topK: number;
  mode?: SearchMode | undefined;
  minScore?: number | undefined;
}

export interface SearchOutcome {
  mode: SearchMode;
  hits: KnowledgeHit[];
  reranked: boolean;
  /**
   * The highest score this search could give, so a score reads on its own: 1 for cosine similarity
   * and a rerank model's relevance, every ranking's first place for a fused score, null for BM25
   * (unbounded).
   */
  maxScore: number | null;
}

type Ranked = { id: string; score: number };
type SearchDeps = { db: BuilderDb; clock: Clock; config: BuilderConfig };

/**
 * Searches the workspace's knowledge bases (ids of other workspaces are ignored): `fulltext`
 * ranks with BM25 over the chunks' terms (`lexical-index.ts`), `vector` by
 * cosine similarity of embeddings (HNSW), `hybrid` fuses the two rankings with reciprocal rank
 * fusion (k = 60). Only chunks of `ready` documents are found. The default mode is `hybrid`, or
 * `fulltext` on a database without pgvector.
 *
 * @example const { hits } = await searchKnowledge(deps, workspaceId, { knowledgeBaseIds: ["kb_…"], query: "refund policy", topK: 5 });
 */
export async function searchKnowledge(
  deps: SearchDeps,
  workspaceId: string,
  request: SearchRequest,
): Promise<SearchOutcome> {
  const { db } = deps;
  const hasVector = await hasVectorSupport(db);
  const mode = request.mode ?? (hasVector ? "hybrid" : "fulltext");
  if (mode !== "fulltext" && !hasVector) throw KnowledgeErrors.VECTOR_SEARCH_UNAVAILABLE({ param: "mode" });
  const empty = { mode, hits: [], reranked: false, maxScore: null };
  if (request.knowledgeBaseIds.length === 0) return empty;
  const bases = await db
    .select()
    .from(knowledgeBases)
    .where(
      and(
        eq(knowledgeBases.workspaceId, workspaceId),
        inArray(knowledgeBases.id, [...request.knowledgeBaseIds]),
      ),
    );
  if (bases.length === 0) return empty;
  const baseIds = bases.map((base) => base.id);
  const reranker = rerankSettingOf(bases, request.knowledgeBaseIds);
  const localBaseIds = bases.filter((base) => base.embeddingProvider === "local").map((base) => base.id);
  const isFused = mode === "hybrid" || (mode === "vector" && localBaseIds.length > 0);
  // Fusion needs more than top_k from each side: a chunk ranked 30th by one and 2nd by the other can win.
  const pool = Math.max(
    isFused ? Math.max(request.topK * 4, 40) : request.topK,
    reranker ? rerankCandidates(request.topK) : 0,
  );

  let ranked: Ranked[];
  let maxScore: number | null = null;
  if (mode === "fulltext") ranked = await bm25Ranking(db, baseIds, request.query, pool);
  else {
    // The BM25 terms first: their postings counts are the local embedder's word idf too.
    const lexical = await questionTerms(db, mode === "hybrid" ? baseIds : localBaseIds, request.query);
    const vectorLists = await vectorRankings(deps, workspaceId, bases, request.query, pool, lexical.terms);
    if (mode === "vector" && localBaseIds.length === 0) {
      ranked = vectorLists.flatMap((list) => list.ranked).sort((a, b) => b.score - a.score);
      maxScore = 1;
    } else if (mode === "vector") {
      // The local embedder matches wording, not meaning, and alone it ranks below plain BM25 on
      // every set measured: its vector search is anchored by the bases' BM25 ranking (docs).
      ranked = fuse([
        ...vectorLists.map((list) => ({ ranked: list.ranked, weight: 1 })),
        { ranked: await bm25RankingOf(db, lexical, pool), weight: LOCAL_VECTOR_LEXICAL_WEIGHT },
      ]);
      maxScore = fusionCeiling(LOCAL_VECTOR_LEXICAL_WEIGHT, vectorLists.length > 0 ? [1] : []);
    } else {
      ranked = fuse([{ ranked: await bm25RankingOf(db, lexical, pool), weight: 1 }, ...vectorLists]);
      maxScore = fusionCeiling(
        1,
        vectorLists.map((list) => list.weight),
      );
    }
  }
  const minScore = request.minScore;
  const kept = (hit: { score: number }) => minScore === undefined || hit.score >= minScore;
  if (reranker) {
    const candidates = await describeHits(db, ranked.slice(0, rerankCandidates(request.topK)));
    const order = await rerankTexts(
      deps,
      workspaceId,
      reranker,
      request.query,
      candidates.map(rerankInput),
      request.topK,
    );
    const hits = order.flatMap(({ index, score }) => {
      const hit = candidates[index];
      return hit ? [{ ...hit, score }] : [];
    });
    return { mode, hits: hits.filter(kept), reranked: true, maxScore: 1 };
  }
  const chosen = ranked.filter(kept).slice(0, request.topK);
  return { mode, hits: await describeHits(db, chosen), reranked: false, maxScore };
}

/**
 * The rerank model of a search: the setting of the first base asked for that has one (bases
 * without one are reranked with it too, since one ranking is answered). None: no second stage.
 */
function rerankSettingOf(
  bases: readonly KnowledgeBaseRow[],
  requested: readonly string[],
): RerankSetting | null {
  for (const id of requested) {
    const base = bases.find((row) => row.id === id);
    if (base?.rerankProvider && base.rerankModel)
      return { provider: base.rerankProvider as RerankSetting["provider"], model: base.rerankModel };
  }
  return null;
}

/** The reranker reads the passage under its document's name and heading path, as a person would. */
function rerankInput(hit: KnowledgeHit): string {
  const header = [hit.documentName, ...hit.headingPath].join(" > ");
  return `${header}\n\n${hit.text}`;
}

/**
 * The best fused score a chunk can get: first in the BM25 ranking and first in its own base's vector
 * ranking (a chunk is in one base, so in one vector ranking at most).
 */
function fusionCeiling(lexicalWeight: number, vectorWeights: readonly number[]): number {
  return (lexicalWeight + Math.max(0, ...vectorWeights)) / (RRF_K + 1);
}

/**
 * Weighted reciprocal rank fusion: each list adds `weight / (k + rank)` for the items it holds.
 *
 * @example fuse([{ ranked: [{ id: "a", score: 3 }], weight: 1 }, { ranked: [{ id: "b", score: 0.9 }, { id: "a", score: 0.8 }], weight: 1 }]) // a first
 */
export function fuse(
  lists: readonly { ranked: readonly Ranked[]; weight: number }[],
  k: number = RRF_K,
): Ranked[] {
  const scores = new Map<string, number>();
  for (const { ranked, weight } of lists) {
    for (const [index, item] of ranked.entries())
      scores.set(item.id, (scores.get(item.id) ?? 0) + weight / (k + index + 1));
  }
  return [...scores.entries()]
    .map(([id, score]) => ({ id, score }))
    .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1));
}

/** One ranking per embedding setting: the query is embedded once per model the bases use. */
async function vectorRankings(
  deps: SearchDeps,
  workspaceId: string,
  bases: readonly KnowledgeBaseRow[],
  query: string,
  limit: number,
  counted: readonly ScoredTerm[],
): Promise<{ ranked: Ranked[]; weight: number }[]> {
  const groups = new Map<string, KnowledgeBaseRow[]>();
  for (const base of bases) {
    const key = `${base.embeddingProvider}\u0000${base.embeddingModel}`;
    groups.set(key, [...(groups.get(key) ?? []), base]);
  }
  const lists: { ranked: Ranked[]; weight: number }[] = [];
  for (const group of groups.values()) {
    const first = group[0] as KnowledgeBaseRow;
    let vector: number[];
    try {
      if (first.embeddingProvider === "local") {
        vector = await localQueryEmbedding(deps.db, group, query, counted);
        lists.push({
          ranked: await vectorRanking(deps.db, group, vector, limit),
          weight: LOCAL_VECTOR_WEIGHT,
        });
        continue;
      }
      const embedder = await embedderFor(deps, workspaceId, {
        provider: first.embeddingProvider,
        model: first.embeddingModel,
      });
      vector = (await embedder.embed([query]))[0] ?? [];
    } catch (error) {
      if (error instanceof EmbeddingError)
        throw KnowledgeErrors.QUERY_EMBEDDING_FAILED({
          message: `The query could not be embedded with ${first.embeddingProvider}/${first.embeddingModel}: ${error.message}`,
        });
      throw error;
    }
    if (vector.length === 0) continue;
    lists.push({
      ranked: await vectorRanking(deps.db, group, vector, limit),
      weight: first.embeddingProvider === "local" ? LOCAL_VECTOR_WEIGHT : 1,
    });
  }
  return lists;
}

/**
 * The question embedded by the local embedder with its words weighted by their idf in the bases
 * searched (`wordIdf`): documents are embedded unweighted at ingestion, so the cosine becomes an
 * idf-weighted match of words, bigrams and word pieces. Measured on the bench (docs). `counted`:
 * the BM25 terms of the same search, whose postings counts are not counted again.
 *
 * @example const vector = await localQueryEmbedding(db, [{ id: "kb_…" }], "create a new folder");
 */
export async function localQueryEmbedding(
  db: BuilderDb,
  bases: readonly Pick<KnowledgeBaseRow, "id">[],
  query: string,
  counted: readonly ScoredTerm[] = [],
): Promise<number[]> {
  const idf = await wordIdf(
    db,
    bases.map((base) => base.id),
    tokenize(query),
    counted,
  );
  return localEmbedding(query, LOCAL_EMBEDDING_DIMENSIONS, (word) => idf.get(word) ?? 0);
}

/**
 * Candidates the HNSW scan keeps: 2.5 × √(chunks searched), so 250 at 10k chunks, 791 at 100k,
 * 1000 from 160k. A graph search needs a list that grows far slower than the graph.
 */
const CANDIDATES_PER_ROOT_CHUNK = 2.5;
/** pgvector's largest `hnsw.ef_search`. */
const MAX_EF_SEARCH = 1000;
/** From this many chunks in the bases searched, the HNSW scan is taken whatever the planner's estimate. */
const INDEX_SCAN_FROM_CHUNKS = 5_000;

/**
 * Nearest chunks by cosine distance through the HNSW index of this width.
 *
 * The scan's candidate list (`hnsw.ef_search`) grows with the chunks searched: a fixed list finds
 * fewer of the true neighbours as a base grows. pgvector prices the index scan by that list, and
 * already at 10k chunks the planner preferred an exact scan through the knowledge-base index and a
 * sort, several times slower than the HNSW index (figures in docs/knowledge-bases.md). So from `INDEX_SCAN_FROM_CHUNKS`
 * sorting is off for the transaction, which leaves the ordered index scan as the only plan without
 * a sort of the base's rows; below it the planner chooses, and the exact scan of a small base, or of
 * a small share of a large table, is the cheaper one. Sequential scans are off throughout: the index
 * on the knowledge base beats them. Iterative scans let the index keep walking when the
 * knowledge-base filter discards the first candidates (pgvector filters after the scan);
 * `relaxed_order` may return them slightly out of order, hence the re-sort. Chunks enter the index
 * as they are embedded, so those of documents still ingesting are filtered out (a hashed list of the
 * bases' few documents that are not ready).
 */
export async function vectorRanking(
  db: BuilderDb,
  bases: readonly Pick<KnowledgeBaseRow, "id">[],
  vector: readonly number[],
  limit: number,
  options: { isExact?: boolean } = {},
): Promise<Ranked[]> {
  const dimensions = vector.length;
  const literal = vectorLiteral(vector);
  const width = sql.raw(String(Math.trunc(dimensions)));
  const baseIds = bases.map((base) => base.id);
  return db.transaction(async (tx) => {
    if (options.isExact) await tx.execute(sql`set local enable_indexscan = off`);
    else await tx.execute(hnswScanSettings(baseIds, limit));
    const rows = await queryRows<{ id: string; distance: number }>(
      tx,
      sql`
      with nearest as materialized (
        select id, embedding::vector(${width}) <=> ${literal}::vector(${width}) as distance
        from knowledge_chunks
        where dimensions = ${width}
          and ${inArray(knowledgeChunks.knowledgeBaseId, baseIds)}
          and document_id not in (select id from knowledge_documents
            where ${inArray(knowledgeDocuments.knowledgeBaseId, baseIds)} and status <> 'ready')
        order by embedding::vector(${width}) <=> ${literal}::vector(${width})
        limit ${limit}
      )
      select id, distance::float8 as distance from nearest order by distance, id`,
    );
    return rows.map((row) => ({ id: row.id, score: 1 - Number(row.distance) }));
  });
}

/**
 * The transaction-local settings of an HNSW search of `baseIds` for `limit` neighbours (see
 * `vectorRanking`), in one statement sized from the bases' chunk counts.
 */
export function hnswScanSettings(baseIds: readonly string[], limit: number): SQL {
  const fewestCandidates = Math.min(MAX_EF_SEARCH, Math.max(100, limit * 4));
  return sql`
    with searched as (
      select coalesce(sum(chunk_count), 0)::int as chunks from knowledge_documents
      where ${inArray(knowledgeDocuments.knowledgeBaseId, [...baseIds])} and status = 'ready'
    )
    select set_config('hnsw.iterative_scan', 'relaxed_order', true),
      set_config('enable_seqscan', 'off', true),
      set_config('enable_sort', case when chunks >= ${INDEX_SCAN_FROM_CHUNKS}::int then 'off' else 'on' end, true),
      set_config('hnsw.ef_search', least(${MAX_EF_SEARCH}::int,
        greatest(${fewestCandidates}::int, ceil(${CANDIDATES_PER_ROOT_CHUNK}::float8 * sqrt(chunks))::int))::text, true)
    from searched`;
}

async function describeHits(db: BuilderDb, ranked: readonly Ranked[]): Promise<KnowledgeHit[]> {
  if (ranked.length === 0) return [];
  const rows = await db
    .select({
      chunkId: knowledgeChunks.id,
      documentId: knowledgeChunks.documentId,
      documentName: knowledgeDocuments.name,
      knowledgeBaseId: knowledgeChunks.knowledgeBaseId,
      position: knowledgeChunks.position,
      page: knowledgeChunks.page,
      headingPath: knowledgeChunks.headingPath,
      text: knowledgeChunks.text,
    })
    .from(knowledgeChunks)
    .innerJoin(knowledgeDocuments, eq(knowledgeDocuments.id, knowledgeChunks.documentId))
    .where(
      inArray(
        knowledgeChunks.id,
        ranked.map((hit) => hit.id),
      ),
    );
  const byId = new Map(rows.map((row) => [row.chunkId, row]));
  return ranked.flatMap((hit) => {
    const row = byId.get(hit.id);
    return row ? [{ ...row, score: hit.score }] : [];
  });
}
