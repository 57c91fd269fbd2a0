import { queryRows } from "@app/db";
import { type SQL, sql } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";

/**
 * BM25 over chunks, scored in SQL from the `knowledge_terms` postings so that both databases
 * (PGlite and PostgreSQL) rank alike and every process sees the same statistics.
 *
 * Words are turned into terms by PostgreSQL's text search with the base's `language`
 * configuration (`english` stems "creating" to "creat" and drops "the"; `simple` only lower-cases),
 * the same way for chunks and questions. A chunk has two fields (BM25F): its text, and a header made
 * of the document's name and the chunk's heading path, whose words count `HEADER_WEIGHT` times:
 * a section called "Rotating keys" is about rotating keys even where its text says "it".
 */

/** Robertson's term-frequency saturation and length normalisation, the usual defaults (Lucene's too). */
export const BM25_K1 = 1.2;
export const BM25_B = 0.75;
/** How many times a header word (document name, heading path) counts against a word of the text. */
export const HEADER_WEIGHT = 2;
/**
 * The weight of the document's own BM25 score (its chunks' postings summed, its length
 * `term_count`, idf over the base's documents) added to each chunk's. A chunk is found within its
 * document: a long manual mentions "directories" in every section, and the one section asking it
 * alone is weak evidence; whole-document BM25 sees the whole manual. Chosen on the bench (docs).
 */
export const DOCUMENT_WEIGHT = 1;

/** The text-search configurations a knowledge base may use (PostgreSQL's built-in snowball ones). */
export const SEARCH_LANGUAGES = [
  "simple",
  "arabic",
  "armenian",
  "basque",
  "catalan",
  "danish",
  "dutch",
  "english",
  "finnish",
  "french",
  "german",
  "greek",
  "hindi",
  "hungarian",
  "indonesian",
  "irish",
  "italian",
  "lithuanian",
  "nepali",
  "norwegian",
  "portuguese",
  "romanian",
  "russian",
  "serbian",
  "spanish",
  "swedish",
  "tamil",
  "turkish",
  "yiddish",
] as const;
export type SearchLanguage = (typeof SEARCH_LANGUAGES)[number];

type Ranked = { id: string; score: number };

/** A parsed question: its free words, and the quoted phrases a chunk must contain word for word. */
export interface ParsedQuery {
  text: string;
  phrases: string[];
}

/**
 * Splits `"quoted phrases"` out of a question. The phrase words also rank, like the free words;
 * a chunk must in addition hold each phrase in order (stop words inside count as any word).
 *
 * @example parseQuery('rotate "api key" now') // { text: 'rotate api key now', phrases: ['api key'] }
 */
export function parseQuery(query: string): ParsedQuery {
  const phrases: string[] = [];
  for (const match of query.matchAll(/"([^"]+)"/g)) {
    const phrase = (match[1] ?? "").trim();
    if (phrase.length > 0) phrases.push(phrase);
  }
  return { text: query.replace(/"/g, " ").replace(/\s+/g, " ").trim(), phrases };
}

/** Words of the question with their weight (1 for the question's own; expansions were tried lower, see docs). */
export type QueryPart = { text: string; weight: number };

/**
 * Writes the postings of a document's chunks and its total length. Runs in the transaction that
 * makes the document `ready`, so a search sees all of a document's terms or none; it first drops
 * any postings the document already had, so running it twice leaves the same rows.
 *
 * @example await indexDocumentTerms(tx, "doc_…");
 */
export async function indexDocumentTerms(db: BuilderDb, documentId: string): Promise<void> {
  await deleteDocumentTerms(db, documentId);
  // A large document's postings are a few hundred thousand rows to group and count per chunk: with
  // the default 4 MB the sorts spilled to disk. Local to the caller's transaction.
  await db.execute(sql`select set_config('work_mem', '64MB', true)`);
  // Inserted in the primary key's order, so consecutive postings land on the same index page rather
  // than all over it; the document's length is the sum of its postings' frequencies. Its per-term
  // sums (`knowledge_document_terms`) come from the same rows, one per distinct term.
  await db.execute(sql`
    with ${termRowsSql(sql`c.document_id = ${documentId}`)},
    total as (select coalesce(sum(frequency), 0)::float8 as length from term_rows),
    inserted as (
      insert into knowledge_terms (knowledge_base_id, term, chunk_id, document_id, frequency, length, document_length)
      select knowledge_base_id, term, chunk_id, ${documentId}, frequency, length, (select length from total)
      from term_rows
      order by term, chunk_id
    ),
    summed as (
      insert into knowledge_document_terms (knowledge_base_id, term, document_id, frequency, chunk_count,
        max_frequency, min_length, document_length)
      select knowledge_base_id, term, ${documentId}, sum(frequency), count(*), max(frequency), min(length),
        (select length from total)
      from term_rows
      group by knowledge_base_id, term
      order by term
    )
    update knowledge_documents set term_count = (select length from total) where id = ${documentId}`);
}

/**
 * A `term_rows(knowledge_base_id, term, chunk_id, frequency, length)` CTE for the chunks matching
 * `where` (aliased `c`). The header is the document's name without extension, `_ . -` read as spaces,
 * followed by the heading path. Migration 0010 backfills ready documents with the same SQL.
 */
function termRowsSql(where: SQL): SQL {
  return sql`
    source as (
      select c.id, c.knowledge_base_id, b.language::regconfig as config, c.text,
        regexp_replace(regexp_replace(d.name, '\\.[^.]*$', ''), '[_.-]+', ' ', 'g') || ' ' ||
          coalesce((select string_agg(h, ' ') from jsonb_array_elements_text(c.heading_path) h), '') as header
      from knowledge_chunks c
      join knowledge_documents d on d.id = c.document_id
      join knowledge_bases b on b.id = c.knowledge_base_id
      where ${where}
    ),
    counted as (
      select s.id, s.knowledge_base_id, u.lexeme, array_length(u.positions, 1)::real as frequency
      from source s, unnest(to_tsvector(s.config, s.text)) u
      union all
      select s.id, s.knowledge_base_id, u.lexeme, ${HEADER_WEIGHT}::real * array_length(u.positions, 1)
      from source s, unnest(to_tsvector(s.config, s.header)) u
    ),
    per_term as (
      select id, knowledge_base_id, lexeme, sum(frequency)::real as frequency from counted group by 1, 2, 3
    ),
    term_rows as (
      select knowledge_base_id, lexeme as term, id as chunk_id, frequency,
        sum(frequency) over (partition by id)::real as length
      from per_term
    )`;
}

/** One query term of one base, with what scoring needs from the base's statistics. */
export type ScoredTerm = {
  base: string;
  term: string;
  /** Lucene's idf over the base's chunks, times the term's query weight. */
  idf: number;
  averageLength: number;
  /** The same idf over the base's documents, and their average length. */
  documentIdf: number;
  averageDocumentLength: number;
  /** Whether the term is in a quoted phrase (a chunk must hold it). */
  required: boolean;
  /** How many chunks of the base hold the term (the length of its posting list). */
  df: number;
};

/**
 * The question's terms in each base's language, with their idf and the base's average length:
 * document frequencies are counted from the per-document sums (`knowledge_document_terms`: a row
 * per document holding the term, with its count of chunks), N and the average length come from the
 * base's ready documents, all from committed rows. A separate, small query, so that the scoring
 * query is simple to plan (the one-statement version spent longer planning than running; see
 * docs/knowledge-bases.md) and the planner sizes
 * nothing on a term it cannot see.
 */
export async function scoredTerms(
  db: BuilderDb,
  baseIds: readonly string[],
  parts: readonly QueryPart[],
  phrases: readonly string[],
): Promise<ScoredTerm[]> {
  const ids = sql.join(
    baseIds.map((id) => sql`${id}`),
    sql`, `,
  );
  const all = [
    ...parts.map((part) => ({ ...part, required: false })),
    ...phrases.map((text) => ({ text, weight: 1, required: true })),
  ];
  const rows = await queryRows<{
    base: string;
    term: string;
    weight: number;
    required: boolean;
    df: number;
    chunks: number;
    average_length: number;
    document_df: number;
    documents: number;
    average_document_length: number;
  }>(
    db,
    sql`
    with query_terms as (
      select b.id as base, u.lexeme as term, max(part.weight)::float8 as weight, bool_or(part.required) as required
      from knowledge_bases b,
        jsonb_to_recordset(${JSON.stringify(all)}::jsonb) as part(text text, weight float8, required boolean),
        unnest(to_tsvector(b.language::regconfig, part.text)) u
      where b.id in (${ids})
      group by 1, 2
    ),
    stats as (
      select knowledge_base_id as base, greatest(sum(chunk_count), 1)::float8 as chunks,
        greatest(sum(term_count)::float8 / greatest(sum(chunk_count), 1), 1) as average_length,
        count(*)::float8 as documents, greatest(avg(term_count)::float8, 1) as average_document_length
      from knowledge_documents where knowledge_base_id in (${ids}) and status = 'ready'
      group by knowledge_base_id
    )
    select q.base, q.term, q.weight, q.required, s.chunks, s.average_length, s.documents, s.average_document_length,
      counts.df, counts.document_df
    from query_terms q join stats s on s.base = q.base,
      lateral (select coalesce(sum(t.chunk_count), 0)::float8 as df, count(*)::float8 as document_df
        from knowledge_document_terms t where t.knowledge_base_id = q.base and t.term = q.term) counts`,
  );
  return rows.map((row) => {
    const weight = Number(row.weight);
    return {
      base: row.base,
      term: row.term,
      idf: weight * bm25Idf(Number(row.df), Number(row.chunks)),
      averageLength: Number(row.average_length),
      documentIdf: weight * bm25Idf(Number(row.document_df), Number(row.documents)),
      averageDocumentLength: Number(row.average_document_length),
      required: row.required,
      df: Number(row.df),
    };
  });
}

/** Lucene's idf: a term in every chunk still scores a little (it is never negative). */
function bm25Idf(df: number, count: number): number {
  return Math.log(1 + (count - df + 0.5) / (df + 0.5));
}

/** BM25's saturated, length-normalised term frequency (times idf, it is the term's score). */
function saturated(frequency: SQL, length: SQL, average: SQL): SQL {
  return sql`${frequency} * ${BM25_K1 + 1}::float8 / (${frequency} + ${BM25_K1}::float8 * (1 - ${BM25_B}::float8 + ${BM25_B}::float8 * ${length} / ${average}))`;
}

/**
 * Each document's own BM25 over the terms of the CTE `q` (base, term, document_idf,
 * average_document_length), from the per-document sums: one row per document holding a term, where
 * summing the term's chunk postings read thousands. `columns`: more aggregates over `q` and `t`.
 */
function documentScoresSql(columns: SQL): SQL {
  return sql`
      select t.document_id,
        sum(q.document_idf * ${saturated(sql`t.frequency`, sql`t.document_length`, sql`q.average_document_length`)}) as score${columns}
      from q join knowledge_document_terms t on t.knowledge_base_id = q.base and t.term = q.term
      group by t.document_id`;
}

/**
 * The scoring query: the postings of `terms` through the primary key, BM25 summed per chunk, chunks
 * holding every quoted phrase only. Exported so the plan test can read its plan.
 */
export function bm25Sql(
  terms: readonly ScoredTerm[],
  phrases: readonly string[],
  limit: number,
  documentWeight: number = DOCUMENT_WEIGHT,
): SQL {
  const requiredPerBase = new Map<string, number>();
  for (const term of terms)
    if (term.required) requiredPerBase.set(term.base, (requiredPerBase.get(term.base) ?? 0) + 1);
  // A VALUES list, not a JSON parameter: the planner then knows it holds a handful of terms and
  // looks each up through the index (with a JSON parameter it guessed 100 and read the whole table).
  const rows = sql.join(
    terms.map(
      (term) =>
        sql`(${term.base}, ${term.term}, ${term.idf}::float8, ${term.averageLength}::float8, ${term.documentIdf}::float8, ${term.averageDocumentLength}::float8, ${term.required}::boolean, ${requiredPerBase.get(term.base) ?? 0}::int)`,
    ),
    sql`, `,
  );
  const phraseFilter =
    phrases.length === 0
      ? sql``
      : sql`
    join knowledge_chunks c on c.id = ranked.id
    join knowledge_bases b on b.id = c.knowledge_base_id
    where not exists (
      select 1 from jsonb_array_elements_text(${JSON.stringify(phrases)}::jsonb) phrase
      where not to_tsvector(b.language::regconfig, c.text) @@ phraseto_tsquery(b.language::regconfig, phrase))`;
  const postings = sql`
    q as materialized (
      select * from (values ${rows}) as q(base, term, idf, average_length, document_idf, average_document_length, required, required_count)
    ),
    postings as materialized (
      select t.chunk_id, t.document_id, t.frequency, t.length, q.idf, q.average_length, q.required, q.required_count
      from q join knowledge_terms t on t.knowledge_base_id = q.base and t.term = q.term
    ),
    chunks as materialized (
      select chunk_id as id, document_id,
        sum(idf * ${saturated(sql`frequency`, sql`length`, sql`average_length`)}) as score
      from postings
      group by chunk_id, document_id
      having count(*) filter (where required) = coalesce(max(required_count), 0)
    )`;
  // The document scores are joined to their chunks through a window over one union rather than a
  // join: both sides come from CTEs the planner cannot size, and its nested loop re-ran the
  // documents' aggregate once per chunk (1 s at 300 chunks).
  const ranked =
    documentWeight === 0
      ? sql`ranked as (select id, score from chunks)`
      : sql`
    documents as materialized (
      ${documentScoresSql(sql``)}
    ),
    combined as (
      select id, document_id, score, 0::float8 as document_score from chunks
      union all
      select null, document_id, 0::float8, score from documents
    ),
    ranked as (
      select id, score + ${documentWeight}::float8 * sum(document_score) over (partition by document_id) as score
      from combined
    )`;
  return sql`
    with ${postings}, ${ranked}
    select ranked.id, ranked.score::float8 as score from ranked ${phraseFilter}
    ${phrases.length === 0 ? sql`where` : sql`and`} ranked.id is not null
    order by score desc, ranked.id
    limit ${limit}`;
}

/**
 * Chunks of `bases` ranked by BM25 for `query`, best first; quoted phrases must occur.
 *
 * @example const ranked = await bm25Ranking(db, ["kb_…"], 'rotate "api key"', 10);
 */
export async function bm25Ranking(
  db: BuilderDb,
  baseIds: readonly string[],
  query: string,
  limit: number,
  documentWeight: number = DOCUMENT_WEIGHT,
): Promise<Ranked[]> {
  if (baseIds.length === 0) return [];
  return bm25RankingOf(db, await questionTerms(db, baseIds, query), limit, documentWeight);
}

/** A question parsed, with its terms scored in `bases` (`scoredTerms`). */
export type QuestionTerms = { parsed: ParsedQuery; terms: ScoredTerm[] };

/**
 * The first step of `bm25Ranking`, apart so that a hybrid search can hand the terms' postings
 * counts to `wordIdf` rather than count them twice.
 *
 * @example const question = await questionTerms(db, ["kb_…"], "rotate keys");
 */
export async function questionTerms(
  db: BuilderDb,
  baseIds: readonly string[],
  query: string,
): Promise<QuestionTerms> {
  const parsed = parseQuery(query);
  if (baseIds.length === 0) return { parsed, terms: [] };
  return {
    parsed,
    terms: await scoredTerms(db, baseIds, [{ text: parsed.text, weight: 1 }], parsed.phrases),
  };
}

/**
 * `bm25Ranking` from terms already scored (`questionTerms`).
 *
 * @example const ranked = await bm25RankingOf(db, await questionTerms(db, ["kb_…"], "rotate keys"), 10);
 */
export async function bm25RankingOf(
  db: BuilderDb,
  { parsed, terms }: QuestionTerms,
  limit: number,
  documentWeight: number = DOCUMENT_WEIGHT,
): Promise<Ranked[]> {
  if (terms.length === 0) return [];
  const pruned = parsed.phrases.length === 0 ? await maxScoreRanking(db, terms, limit, documentWeight) : null;
  if (pruned) return pruned;
  const rows = await queryRows<{ id: string; score: number }>(
    db,
    bm25Sql(terms, parsed.phrases, limit, documentWeight),
  );
  return rows.map((row) => ({ id: row.id, score: Number(row.score) }));
}

/**
 * MaxScore's statement (see `maxScoreRanking`): the top `limit` of the chunks holding a term not in
 * `common`, scored in full, each with `bound`, the most a chunk holding only common terms can score
 * (the largest over documents of the common terms' chunk bounds in it plus the document's score).
 * Exported so the plan test can read its plan.
 */
export function maxScoreSql(
  terms: readonly ScoredTerm[],
  common: ReadonlySet<ScoredTerm>,
  limit: number,
  documentWeight: number = DOCUMENT_WEIGHT,
): SQL {
  const rows = sql.join(
    terms.map(
      (term) =>
        sql`(${term.base}, ${term.term}, ${term.idf}::float8, ${term.averageLength}::float8, ${term.documentIdf}::float8, ${term.averageDocumentLength}::float8, ${!common.has(term)}::boolean)`,
    ),
    sql`, `,
  );
  // A common term's score in a chunk of a document is at most its saturated frequency at the
  // highest frequency and the shortest chunk among the document's chunks holding it.
  const commonBound = sql`,
        sum(case when q.essential then 0::float8
          else q.idf * ${saturated(sql`t.max_frequency`, sql`t.min_length`, sql`q.average_length`)} end) as common_bound`;
  return sql`
    with q as materialized (
      select * from (values ${rows}) as q(base, term, idf, average_length, document_idf, average_document_length, essential)
    ),
    essential_postings as materialized (
      select t.chunk_id, t.document_id, q.base, t.frequency, t.length, q.idf, q.average_length
      from q join knowledge_terms t on t.knowledge_base_id = q.base and t.term = q.term
      where q.essential
    ),
    candidates as materialized (
      select distinct chunk_id, document_id, base from essential_postings
    ),
    postings as (
      select chunk_id, document_id, frequency, length, idf, average_length from essential_postings
      union all
      select c.chunk_id, c.document_id, t.frequency, t.length, q.idf, q.average_length
      from candidates c
      join q on q.base = c.base and not q.essential
      cross join lateral (
        select t.frequency, t.length from knowledge_terms t
        where t.knowledge_base_id = q.base and t.term = q.term and t.chunk_id = c.chunk_id
        offset 0
      ) t
    ),
    chunks as (
      select chunk_id as id, document_id, sum(idf * ${saturated(sql`frequency`, sql`length`, sql`average_length`)}) as score
      from postings group by chunk_id, document_id
    ),
    documents as materialized (${documentScoresSql(commonBound)}
    )
    select c.id, (c.score + ${documentWeight}::float8 * d.score)::float8 as score,
      (select coalesce(max(${documentWeight}::float8 * score + common_bound), 0) from documents
        where common_bound > 0)::float8 as bound
    from chunks c join documents d on d.document_id = c.document_id
    order by score desc, c.id
    limit ${limit}`;
}

/**
 * Below this many postings of the common terms, reading them costs less than the second statement
 * that skipping them may need (at 10k chunks a common term has a few thousand).
 */
const PRUNED_POSTINGS_FROM = 2_000;
/**
 * The common terms skipped at first may together bound at most this share of the strongest term's
 * bound: a chunk holding only them then scores well below one holding a rare term, and the check
 * below usually passes.
 */
const COMMON_TERMS_BOUND_SHARE = 0.5;

/**
 * The common ("non-essential") terms of MaxScore (Turtle and Flood, 1995): those of smallest upper
 * bound whose bounds sum to at most `COMMON_TERMS_BOUND_SHARE` of the largest one. A term adds at most
 * idf × (k1 + 1) to a chunk and document idf × (k1 + 1) to its document. None when skipping them
 * would not save enough postings to pay for a possible second statement.
 */
export function commonTerms(terms: readonly ScoredTerm[], documentWeight: number): ScoredTerm[] {
  const bound = (term: ScoredTerm) => (BM25_K1 + 1) * (term.idf + documentWeight * term.documentIdf);
  const sorted = [...terms].sort((a, b) => bound(a) - bound(b));
  const strongest = bound(sorted.at(-1) as ScoredTerm);
  const common: ScoredTerm[] = [];
  let sum = 0;
  for (const term of sorted.slice(0, -1)) {
    if (sum + bound(term) > COMMON_TERMS_BOUND_SHARE * strongest) break;
    common.push(term);
    sum += bound(term);
  }
  const skipped = common.reduce((total, term) => total + term.df, 0);
  return skipped >= PRUNED_POSTINGS_FROM ? common : [];
}

/**
 * The top `limit` of the full BM25 ranking without reading the common terms' postings chunk by
 * chunk, or null when that cannot be proven (the caller then scores in full). Exact, not an
 * approximation:
 *
 * 1. Every chunk holding a rare ("essential") term is scored in full: its common terms are looked up
 *    by primary key, chunk by chunk. Document scores come from the per-document sums
 *    (`knowledge_document_terms`), a row per document and term.
 * 2. A chunk holding no rare term scores at most, in its document, the common terms' bounds there
 *    (each one's score at the highest frequency and shortest chunk among the document's chunks
 *    holding it) plus the document's score. When the largest such bound is below the `limit`-th
 *    score of step 1, no such chunk can enter the top, and step 1's ranking is the full one's (ties
 *    included: every chunk scoring the `limit`-th score or more was scored). Phrases keep the full
 *    scoring (their filter follows it).
 */
export async function maxScoreRanking(
  db: BuilderDb,
  terms: readonly ScoredTerm[],
  limit: number,
  documentWeight: number = DOCUMENT_WEIGHT,
): Promise<Ranked[] | null> {
  if (terms.some((term) => term.required)) return null;
  const common = new Set(commonTerms(terms, documentWeight));
  if (common.size === 0) return null;
  const scored = await queryRows<{ id: string; score: number; bound: number }>(
    db,
    maxScoreSql(terms, common, limit, documentWeight),
  );
  const threshold = scored.at(-1);
  if (scored.length < limit || !threshold) return null;
  const kth = Number(threshold.score);
  // A margin for the sums' rounding, which differs with their order.
  if (Number(threshold.bound) >= kth - 1e-9 * Math.abs(kth)) return null;
  return scored.map((row) => ({ id: row.id, score: Number(row.score) }));
}

/**
 * The idf of each of `words` in `bases` (as BM25 counts it: over the ready chunks, each word put
 * through the base's text-search configuration; a word that is no term there, like a stop word,
 * counts as being in every chunk, one found nowhere as the rarest). Weighs the question's words
 * for the local embedder (`localEmbedding`'s `wordWeight`). Words absent from the answer are absent
 * from the map. `counted`: postings counts already known (a hybrid search's BM25 terms), not counted again.
 *
 * @example const idf = await wordIdf(db, ["kb_…"], ["rotate", "key"]);
 */
export async function wordIdf(
  db: BuilderDb,
  baseIds: readonly string[],
  words: readonly string[],
  counted: readonly Pick<ScoredTerm, "base" | "term" | "df">[] = [],
): Promise<Map<string, number>> {
  if (baseIds.length === 0 || words.length === 0) return new Map();
  const ids = sql.join(
    baseIds.map((id) => sql`${id}`),
    sql`, `,
  );
  const rows = await queryRows<{ word: string; df: number | null; chunks: number }>(
    db,
    sql`
    with lexemes as (
      select w.word, b.id as base, u.lexeme
      from jsonb_array_elements_text(${JSON.stringify([...new Set(words)])}::jsonb) as w(word)
      cross join knowledge_bases b
      cross join lateral unnest(to_tsvector(b.language::regconfig, w.word)) u
      where b.id in (${ids})
    ),
    counted as (
      select l.word, sum(coalesce(known.df, (select coalesce(sum(t.chunk_count), 0) from knowledge_document_terms t
        where t.knowledge_base_id = l.base and t.term = l.lexeme)))::float8 as df
      from lexemes l
      left join jsonb_to_recordset(${JSON.stringify(counted.map(({ base, term, df }) => ({ base, term, df })))}::jsonb)
        as known(base text, term text, df float8) on known.base = l.base and known.term = l.lexeme
      group by l.word
    )
    select w.word, counted.df,
      (select greatest(coalesce(sum(chunk_count), 0), 1)::float8 from knowledge_documents
        where knowledge_base_id in (${ids}) and status = 'ready') as chunks
    from jsonb_array_elements_text(${JSON.stringify([...new Set(words)])}::jsonb) as w(word)
    left join counted on counted.word = w.word`,
  );
  return new Map(
    rows.map((row) => {
      const chunks = Number(row.chunks);
      return [row.word, bm25Idf(row.df === null ? chunks : Math.min(Number(row.df), chunks), chunks)];
    }),
  );
}

/**
 * Deletes a document's postings and its per-term sums. Called in the transaction that deletes the document, after it:
 * the document's row lock makes a concurrent `ready` transaction commit its postings first.
 *
 * @example await deleteDocumentTerms(tx, "doc_…");
 */
export async function deleteDocumentTerms(db: BuilderDb, documentId: string): Promise<void> {
  await db.execute(sql`delete from knowledge_terms where document_id = ${documentId}`);
  await db.execute(sql`delete from knowledge_document_terms where document_id = ${documentId}`);
}

/**
 * Deletes a base's postings and per-term sums (they have no foreign key to it). Called in the transaction that
 * deletes the base, after it.
 *
 * @example await deleteBaseTerms(tx, "kb_…");
 */
export async function deleteBaseTerms(
  db: Pick<BuilderDb, "execute">,
  knowledgeBaseId: string,
): Promise<void> {
  await db.execute(sql`delete from knowledge_terms where knowledge_base_id = ${knowledgeBaseId}`);
  await db.execute(sql`delete from knowledge_document_terms where knowledge_base_id = ${knowledgeBaseId}`);
}

/** Statistics are gathered again once the ready documents or their chunks changed by this share. */
const STATISTICS_DRIFT = 0.2;

/**
 * Runs `ANALYZE` on the knowledge tables (and `VACUUM` on the postings) when the ready documents or chunks drifted by a fifth
 * since statistics were last gathered (or never were). Without it the planner keeps the estimates
 * of the first, empty tables and reads whole tables instead of the indexes (the measured cost is
 * in docs/knowledge-bases.md). PGlite has no autovacuum, and PostgreSQL's
 * runs on its own schedule, so ingestion and deletion call this after they commit. Answers whether
 * it analysed. Another process analysing at the same time does no harm.
 *
 * @example await refreshPlannerStatistics(db, clock.now());
 */
export async function refreshPlannerStatistics(db: BuilderDb, now: Date): Promise<boolean> {
  const [live] = await queryRows<{ documents: number; chunks: number }>(
    db,
    sql`select count(*)::int as documents, coalesce(sum(chunk_count), 0)::float8 as chunks
      from knowledge_documents where status = 'ready'`,
  );
  const [last] = await queryRows<{ documents: number; chunks: number }>(
    db,
    sql`select ready_documents as documents, ready_chunks::float8 as chunks from knowledge_statistics where id = 1`,
  );
  const documents = Number(live?.documents ?? 0);
  const chunks = Number(live?.chunks ?? 0);
  const drifted = (current: number, then: number) =>
    Math.abs(current - then) > STATISTICS_DRIFT * Math.max(then, 1);
  if (last && !drifted(documents, Number(last.documents)) && !drifted(chunks, Number(last.chunks)))
    return false;
  await db.execute(sql`analyze knowledge_documents, knowledge_chunks`);
  // VACUUM as well for the postings and their per-document sums: it marks their pages all-visible,
  // which lets scoring read them from the index alone. It only visits pages changed since the last one.
  await db.execute(sql`vacuum (analyze) knowledge_terms, knowledge_document_terms`);
  await db.execute(sql`
    insert into knowledge_statistics (id, ready_documents, ready_chunks, analyzed_at)
    values (1, ${documents}, ${chunks}, ${now})
    on conflict (id) do update set ready_documents = excluded.ready_documents,
      ready_chunks = excluded.ready_chunks, analyzed_at = excluded.analyzed_at`);
  return true;
}

const refreshes = new WeakMap<object, { running: Promise<void>; isAgain: boolean }>();

/**
 * Runs `refreshPlannerStatistics` after a request's changes committed, without making the request
 * wait for it or fail with it: gathering statistics only speeds searches up, and `ANALYZE` can fail
 * for reasons that are not the request's (on PostgreSQL two processes analysing the same table at
 * once may get "tuple concurrently updated"; a lock held elsewhere; the service stopping). A failure
 * is logged. Refreshes asked for while one runs in this process are coalesced into one more run.
 * Answers a promise that settles when the refresh is over and never rejects (tests wait on it).
 *
 * @example void refreshPlannerStatisticsLater({ db, clock, logger });
 */
export function refreshPlannerStatisticsLater(deps: {
  db: BuilderDb;
  clock: { now(): Date };
  logger: { warn(object: object, message: string): void };
}): Promise<void> {
  const current = refreshes.get(deps.db);
  if (current) {
    current.isAgain = true;
    return current.running;
  }
  const state = { running: Promise.resolve(), isAgain: false };
  const run = async () => {
    do {
      state.isAgain = false;
      try {
        await refreshPlannerStatistics(deps.db, deps.clock.now());
      } catch (error) {
        deps.logger.warn({ err: error }, "gathering planner statistics failed");
      }
    } while (state.isAgain);
    refreshes.delete(deps.db);
  };
  // Started on the next turn, so the caller's response is sent first.
  state.running = new Promise<void>((resolve) => setImmediate(resolve)).then(run);
  refreshes.set(deps.db, state);
  return state.running;
}
