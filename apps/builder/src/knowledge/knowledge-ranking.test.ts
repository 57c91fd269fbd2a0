import { Writable } from "node:stream";
import { queryRows } from "@app/db";
import { createLogger } from "@app/http";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestBuilder } from "../../test/harness.ts";
import {
  createBase,
  insertDocuments,
  search,
  uploadOk,
  waitForDocument,
} from "../../test/knowledge-support.ts";
import {
  BM25_B,
  BM25_K1,
  bm25Ranking,
  bm25Sql,
  commonTerms,
  DOCUMENT_WEIGHT,
  HEADER_WEIGHT,
  maxScoreRanking,
  maxScoreSql,
  questionTerms,
  refreshPlannerStatistics,
  refreshPlannerStatisticsLater,
  scoredTerms,
  wordIdf,
} from "./lexical-index.ts";
import { fuse, LOCAL_VECTOR_LEXICAL_WEIGHT, localQueryEmbedding, vectorRanking } from "./search-knowledge.ts";

// Runs on PGlite, and on PostgreSQL with TEST_DATABASE_URL set.
const logs: string[] = [];
const builder = await startTestBuilder({
  logger: createLogger({
    service: "builder-test",
    level: "warn",
    destination: new Writable({
      write(chunk: Buffer, _encoding, done) {
        logs.push(chunk.toString("utf8"));
        done();
      },
    }),
  }),
});
let alice: string;
beforeAll(async () => {
  alice = (await builder.signUp()).cookie;
});
afterAll(() => builder.stop());

async function ingest(base: string, name: string, text: string): Promise<string> {
  const document = await uploadOk(builder, alice, { knowledgeBaseId: base, name, bytes: text });
  expect((await waitForDocument(builder, alice, document.id)).status).toBe("ready");
  return document.id;
}

async function remove(documentId: string) {
  const response = await builder.request(`/api/rag/documents/${documentId}`, {
    method: "DELETE",
    cookie: alice,
  });
  expect(response.status).toBe(204);
}

const fulltext = async (base: string, query: string, topK = 10) =>
  (await search(builder, alice, base, { query, mode: "fulltext", top_k: topK })).data;

/**
 * The rows of `knowledge_document_terms` of `base` that differ from its postings summed per
 * (term, document), both ways: none when the per-document sums are right.
 */
async function sumsDifferingFromPostings(base: string): Promise<number> {
  const [row] = await queryRows<{ count: number }>(
    builder.deps.db,
    sql`
    with summed as (
      select term, document_id, sum(frequency) as frequency, count(*)::int as chunk_count,
        max(frequency) as max_frequency, min(length) as min_length, max(document_length) as document_length
      from knowledge_terms where knowledge_base_id = ${base} group by term, document_id
    ),
    stored as (
      select term, document_id, frequency, chunk_count, max_frequency, min_length, document_length
      from knowledge_document_terms where knowledge_base_id = ${base}
    )
    select (select count(*) from (select * from summed except select * from stored) a)::int
      + (select count(*) from (select * from stored except select * from summed) b)::int as count`,
  );
  return Number(row?.count);
}

/**
 * BM25 computed here from first principles, for one term in a base of `simple`-language documents
 * of one chunk each: the chunk's score plus `DOCUMENT_WEIGHT` times its document's, which is the
 * same figure when a document is one chunk.
 */
function bm25(frequency: number, length: number, df: number, chunks: number, averageLength: number): number {
  const idf = Math.log(1 + (chunks - df + 0.5) / (df + 0.5));
  return (
    ((1 + DOCUMENT_WEIGHT) * (idf * frequency * (BM25_K1 + 1))) /
    (frequency + BM25_K1 * (1 - BM25_B + (BM25_B * length) / averageLength))
  );
}

describe("BM25 ranking", () => {
  it("weighs a rare word above a common one (inverse document frequency)", async () => {
    const base = await createBase(builder, alice, { name: "Idf" });
    for (let i = 0; i < 6; i++)
      await ingest(
        base,
        `server-${i}.txt`,
        `The server restarts nightly. The server logs grow. Server number ${i}.`,
      );
    await ingest(base, "zebra.txt", "A zebra crossing is painted outside the office.");
    const hits = await fulltext(base, "server zebra");
    // ts_rank_cd, which has no idf, put the chunks saying "server" three times first.
    expect(hits[0]?.document_name).toBe("zebra.txt");
    expect(hits).toHaveLength(7);
  });

  it("gives the local embedder the same word idf from the BM25 terms' counts as from its own", async () => {
    const { db } = builder.deps;
    const base = await createBase(builder, alice, { name: "Shared counts" });
    await ingest(base, "keys.txt", "Rotate the keys every month. Old keys expire.");
    await ingest(base, "folders.txt", "Create a folder for the keys.");
    await ingest(base, "lighthouse.txt", "The lighthouse keeper rotates the lamp.");
    const question = await questionTerms(db, [base], "rotating keys folders");
    expect(question.terms.map((term) => term.term).sort()).toEqual(["folder", "key", "rotat"]);
    const words = ["rotating", "keys", "folders", "the", "absent"];
    const own = await wordIdf(db, [base], words);
    expect(await wordIdf(db, [base], words, question.terms)).toEqual(own);
    // The counts handed over are the ones used.
    const wrong = question.terms.map((term) => ({ ...term, df: 0 }));
    expect(await wordIdf(db, [base], words, wrong)).not.toEqual(own);
  });

  it("scores exactly BM25 with per-base statistics, kept right as documents come and go", async () => {
    const base = await createBase(builder, alice, { name: "Exact", language: "simple" });
    const other = await createBase(builder, alice, { name: "Other", language: "simple" });
    // `simple` keeps every word; header words are the file name's (weight HEADER_WEIGHT).
    await ingest(base, "d1.txt", "apple banana apple");
    await ingest(base, "d2.txt", "banana cherry");
    const score = async () =>
      (await fulltext(base, "apple")).find((hit) => hit.document_name === "d1.txt")?.score;
    // d1: apple ×2, length 3 + 2 × 1 ("d1" in the header); d2: length 2 + 2.
    const lengths = [3 + HEADER_WEIGHT, 2 + HEADER_WEIGHT];
    const average = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
    expect(await score()).toBeCloseTo(bm25(2, lengths[0] as number, 1, 2, average(lengths)), 5);

    // Another base's documents change nothing here.
    const elsewhere = await ingest(other, "o1.txt", "apple apple apple apple");
    expect(await score()).toBeCloseTo(bm25(2, lengths[0] as number, 1, 2, average(lengths)), 5);

    // A second chunk holding "apple" in this base raises its document frequency and the average length.
    const third = await ingest(base, "d3.txt", "apple durian elderberry fig grape");
    const withThird = [...lengths, 5 + HEADER_WEIGHT];
    expect(await score()).toBeCloseTo(bm25(2, lengths[0] as number, 2, 3, average(withThird)), 5);

    // Deleting it restores the statistics of the two documents.
    await remove(third);
    await remove(elsewhere);
    expect(await score()).toBeCloseTo(bm25(2, lengths[0] as number, 1, 2, average(lengths)), 5);
    const [left] = await queryRows<{ count: number }>(
      builder.deps.db,
      sql`select count(*)::int as count from knowledge_terms where knowledge_base_id in (${base}, ${other})
        and term in ('durian', 'fig')`,
    );
    expect(left?.count).toBe(0);
    // The per-document sums followed the postings in and out.
    expect(await sumsDifferingFromPostings(base)).toBe(0);
    expect(await sumsDifferingFromPostings(other)).toBe(0);
    const [sums] = await queryRows<{ count: number }>(
      builder.deps.db,
      sql`select count(*)::int as count from knowledge_document_terms where document_id in (${third}, ${elsewhere})`,
    );
    expect(sums?.count).toBe(0);
  });

  it("deleting a base deletes its postings and leaves another base's alone", async () => {
    const doomed = await createBase(builder, alice, { name: "Doomed postings" });
    const kept = await createBase(builder, alice, { name: "Kept postings" });
    await ingest(doomed, "a.txt", "quince quince rhubarb");
    await ingest(kept, "b.txt", "quince salsify");
    const postings = async (base: string) => {
      const [row] = await queryRows<{ count: number }>(
        builder.deps.db,
        sql`select count(*)::int + (select count(*)::int from knowledge_document_terms where knowledge_base_id = ${base}) as count
          from knowledge_terms where knowledge_base_id = ${base}`,
      );
      return row?.count;
    };
    expect(await postings(doomed)).toBeGreaterThan(0);
    const before = await postings(kept);
    const deleted = await builder.request(`/api/knowledge-bases/${doomed}`, {
      method: "DELETE",
      cookie: alice,
    });
    expect(deleted.status).toBe(204);
    expect(await postings(doomed)).toBe(0);
    expect(await postings(kept)).toBe(before);
  });

  it("stems and drops stop words in the base's language", async () => {
    const english = await createBase(builder, alice, { name: "English" });
    const simple = await createBase(builder, alice, { name: "Simple", language: "simple" });
    const german = await createBase(builder, alice, { name: "German", language: "german" });
    await ingest(english, "folders.md", "# Files\n\nFolders are created with mkdir.");
    await ingest(english, "other.md", "# Other\n\nThe printer needs paper.");
    await ingest(simple, "folders.md", "# Files\n\nFolders are created with mkdir.");
    await ingest(german, "haus.txt", "Das Haus steht am See.");

    expect((await fulltext(english, "creating a folder"))[0]?.document_name).toBe("folders.md");
    // Only stop words: nothing to rank by.
    expect(await fulltext(english, "the of and are")).toEqual([]);
    // `simple` neither stems nor drops words.
    expect(await fulltext(simple, "creating a folder")).toEqual([]);
    expect((await fulltext(simple, "created"))[0]?.document_name).toBe("folders.md");
    expect((await fulltext(german, "Häuser"))[0]?.document_name).toBe("haus.txt");
  });

  it("ranks a match in the title or heading path above the same word in passing", async () => {
    const base = await createBase(builder, alice, { name: "Headers" });
    await ingest(base, "faq.md", "# Billing\n\nWe send an invoice monthly. Refunds are possible on request.");
    await ingest(base, "refunds.md", "# Refunds\n\nWrite to support with your order number and the reason.");
    expect((await fulltext(base, "refunds"))[0]?.document_name).toBe("refunds.md");
  });

  it("counts the whole document's evidence: a manual about a thing outranks a passing mention", async () => {
    const base = await createBase(builder, alice, { name: "Documents", language: "simple" });
    const filler = (seed: number) =>
      Array.from({ length: 60 }, (_, i) => `filler${(seed * 7 + i) % 40}`).join(" ");
    // Each section of the manual (a chunk of its own) says one of the two words; none says both.
    const sections = Array.from(
      { length: 6 },
      (_, i) => `## Part ${i}\n\n${i % 2 === 0 ? "make" : "directories"} ${filler(i)}`,
    );
    await ingest(base, "manual.md", `# Manual\n\n${sections.join("\n\n")}`);
    // A short note says one of them once.
    await ingest(base, "notes.txt", "Directories.");
    for (let i = 0; i < 3; i++) await ingest(base, `other-${i}.txt`, filler(10 + i));

    const hits = await fulltext(base, "make directories", 20);
    expect(hits[0]?.document_name).toBe("manual.md");
    // Chunk by chunk, the note's short chunk wins: its one word is a larger share of it.
    const chunksOnly = await bm25Ranking(builder.deps.db, [base], "make directories", 20, 0);
    expect(chunksOnly[0]?.id).toBe(hits.find((hit) => hit.document_name === "notes.txt")?.chunk_id);
  });

  it('keeps only chunks holding a "quoted phrase" in order', async () => {
    const base = await createBase(builder, alice, { name: "Phrases" });
    await ingest(base, "ordered.txt", "Rotate the api key every month.");
    await ingest(base, "scattered.txt", "The key of the api gateway is rotated by the vendor.");
    const loose = await fulltext(base, "api key");
    expect(loose.map((hit) => hit.document_name).sort()).toEqual(["ordered.txt", "scattered.txt"]);
    expect((await fulltext(base, '"api key"')).map((hit) => hit.document_name)).toEqual(["ordered.txt"]);
    expect(await fulltext(base, 'gateway "api key"')).toHaveLength(1);
    expect(await fulltext(base, '"key api"')).toEqual([]);
  });

  it("refuses an unknown language with 422", async () => {
    const response = await builder.request("/api/knowledge-bases", {
      method: "POST",
      cookie: alice,
      json: { name: "Klingon", language: "klingon" },
    });
    expect(response.status).toBe(422);
    const created = await builder.request("/api/knowledge-bases", {
      method: "POST",
      cookie: alice,
      json: { name: "Default" },
    });
    expect(((await created.json()) as { language: string }).language).toBe("english");
  });
});

describe("hybrid fusion", () => {
  it("adds weight / (k + rank) per list, so a light list moves hits up without taking the lead", () => {
    const lexical = ["a", "b", "c", "d"].map((id, i) => ({ id, score: 10 - i }));
    const vector = [{ id: "d", score: 0.9 }];
    const fused = fuse([
      { ranked: lexical, weight: 1 },
      { ranked: vector, weight: 0.2 },
    ]);
    expect(fused.map((hit) => hit.id)).toEqual(["a", "d", "b", "c"]);
    expect(fused[1]?.score).toBeCloseTo(1 / 14 + 0.2 / 11, 10);
    // At equal weights the vector list's first hit takes the lead.
    const equal = fuse([
      { ranked: lexical, weight: 1 },
      { ranked: vector, weight: 1 },
    ]);
    expect(equal[0]?.id).toBe("d");
  });
});

describe.skipIf(!builder.hasVector)("vector mode with the local embedder", () => {
  it("fuses the idf-weighted vector ranking with BM25 at equal weight, scores being the fused ones", async () => {
    const base = await createBase(builder, alice, { name: "Local vectors" });
    await ingest(base, "keys.md", "# Keys\n\nRotate the signing keys every ninety days.");
    await ingest(base, "rotation.md", "# Rotation\n\nLog rotation keeps a week of files.");
    await ingest(base, "billing.md", "# Billing\n\nInvoices are sent monthly.");
    const query = "rotating keys";
    const { data } = await search(builder, alice, base, { query, mode: "vector", top_k: 5 });
    const { db } = builder.deps;
    const vectors = await vectorRanking(
      db,
      [{ id: base }],
      await localQueryEmbedding(db, [{ id: base }], query),
      40,
    );
    const expected = fuse([
      { ranked: vectors, weight: 1 },
      { ranked: await bm25Ranking(db, [base], query, 40), weight: LOCAL_VECTOR_LEXICAL_WEIGHT },
    ]);
    expect(data.map((hit) => hit.chunk_id)).toEqual(expected.slice(0, 5).map((hit) => hit.id));
    expect(data[0]?.document_name).toBe("keys.md");
    expect(data[0]?.score).toBeCloseTo(expected[0]?.score ?? 0, 10);
  });
});

describe("planner statistics", () => {
  const reltuples = async (table: string) => {
    const [row] = await queryRows<{ rows: number }>(
      builder.deps.db,
      sql`select reltuples::float8 as rows from pg_class where relname = ${table} and relnamespace = current_schema()::regnamespace`,
    );
    return Number(row?.rows ?? -1);
  };
  const countOf = async (table: "knowledge_terms" | "knowledge_chunks") => {
    const [row] = await queryRows<{ count: number }>(
      builder.deps.db,
      sql`select count(*)::int as count from ${sql.raw(table)}`,
    );
    return Number(row?.count ?? 0);
  };

  const statisticsCaughtUp = async () => {
    const deadline = Date.now() + 10_000;
    while ((await reltuples("knowledge_terms")) !== (await countOf("knowledge_terms"))) {
      if (Date.now() > deadline)
        throw new Error(`statistics stuck at ${await reltuples("knowledge_terms")} postings`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };

  it("are gathered after ingestion and deletion once the ready chunks drifted", async () => {
    // Alone in the workspace, so the drift is this test's.
    const listed = await builder.request("/api/knowledge-bases?limit=100", { cookie: alice });
    for (const { id } of ((await listed.json()) as { data: { id: string }[] }).data) {
      const deleted = await builder.request(`/api/knowledge-bases/${id}`, {
        method: "DELETE",
        cookie: alice,
      });
      expect(deleted.status).toBe(204);
    }
    const base = await createBase(builder, alice, { name: "Statistics" });
    const ids: string[] = [];
    for (let i = 0; i < 4; i++)
      ids.push(await ingest(base, `stats-${i}.txt`, `Paragraph ${i} about ${"lighthouses ".repeat(i + 1)}.`));
    // The last ingestion grew the ready chunks by more than a fifth, so the statistics are current
    // (gathered just after the document's ready transaction commits, hence the polling).
    await statisticsCaughtUp();
    expect(await reltuples("knowledge_chunks")).toBe(await countOf("knowledge_chunks"));

    // A change below the threshold leaves them alone; one above it gathers them again.
    expect(await refreshPlannerStatistics(builder.deps.db, new Date())).toBe(false);
    for (const id of ids) await remove(id);
    await statisticsCaughtUp();
  });

  it("never fail a deletion: they are gathered after the response, and a failure is logged", async () => {
    const { db, clock } = builder.deps;
    const base = await createBase(builder, alice, { name: "Doomed" });
    const document = await ingest(base, "doomed.txt", "A passage about lighthouses and their keepers.");
    const other = await createBase(builder, alice, { name: "Doomed too" });
    await ingest(other, "doomed-too.txt", "Another passage about keepers.");
    const logged = logs.length;
    // Statistics cannot be gathered while their bookkeeping table is away (on PostgreSQL a
    // concurrent ANALYZE of the same table can fail likewise: "tuple concurrently updated").
    await db.execute(sql`alter table knowledge_statistics rename to knowledge_statistics_away`);
    try {
      await remove(document);
      const deleted = await builder.request(`/api/knowledge-bases/${other}`, {
        method: "DELETE",
        cookie: alice,
      });
      expect(deleted.status).toBe(204);
      // Joins the refresh the deletions started (and runs it once more): it fails while the table is away.
      await refreshPlannerStatisticsLater({ db, clock, logger: builder.deps.logger });
    } finally {
      await db.execute(sql`alter table knowledge_statistics_away rename to knowledge_statistics`);
    }
    expect(logs.slice(logged).join("")).toMatch(/gathering planner statistics failed/);
    expect((await builder.request(`/api/rag/documents/${document}`, { cookie: alice })).status).toBe(404);
    // And the next refresh works again.
    await refreshPlannerStatistics(db, new Date());
  });

  it("keep every search query on its index at 10,000 chunks", async () => {
    const { db } = builder.deps;
    const base = await createBase(builder, alice, { name: "Plans" });
    // Ten ready documents of 1,000 chunks, each chunk twelve words of a 3,000-word vocabulary.
    await insertDocuments(builder, base, {
      count: 10,
      chunks: 1_000,
      chunkText: (d) =>
        sql`(select string_agg('w' || ((n * 7919 + k * 104729 + ${d} * 31) % 3000), ' ') from generate_series(1, 12) k)`,
    });
    await refreshPlannerStatistics(db, new Date());
    const plan = async (query: ReturnType<typeof sql>) =>
      db.transaction(async (tx) => {
        const rows = await queryRows<{ "QUERY PLAN": string }>(tx, sql`explain ${query}`);
        return rows.map((row) => row["QUERY PLAN"]).join("\n");
      });

    const lexical = await plan(
      bm25Sql(await scoredTerms(db, [base], [{ text: "w17 w2999 w40 lighthouse", weight: 1 }], []), [], 40),
    );
    expect(lexical).toMatch(/Index (Only )?Scan using knowledge_terms_knowledge_base_id_term_chunk_id_pk/);
    expect(lexical).not.toMatch(/Seq Scan on knowledge_terms/);

    const phrased = await plan(
      bm25Sql(await scoredTerms(db, [base], [{ text: "w17 w40", weight: 1 }], ["w17 w40"]), ["w17 w40"], 40),
    );
    // The term statistics (and the local embedder's word idf) read the per-document sums.
    const statistics = await plan(
      sql`select coalesce(sum(t.chunk_count), 0), count(*) from knowledge_document_terms t
        where t.knowledge_base_id = ${base} and t.term = ${"w17"}`,
    );
    expect(statistics).toMatch(
      /Index (Only )?Scan using knowledge_document_terms_knowledge_base_id_term_document_id_pk/,
    );
    expect(lexical).toMatch(
      /Index (Only )?Scan using knowledge_document_terms_knowledge_base_id_term_document_id_pk/,
    );
    expect(lexical).not.toMatch(/Seq Scan on knowledge_document_terms/);
    expect(phrased).toMatch(/Index (Only )?Scan using knowledge_terms_knowledge_base_id_term_chunk_id_pk/);
    expect(phrased).not.toMatch(/Seq Scan on knowledge_(terms|chunks)/);

    // MaxScore's statement: the rare terms' postings and the common ones' lookups by primary key,
    // the documents from their sums.
    const pruningTerms = await scoredTerms(db, [base], [{ text: "w17 w2999 w40", weight: 1 }], []);
    const pruned = await plan(
      maxScoreSql(pruningTerms, new Set(pruningTerms.filter((term) => term.term === "w17")), 40),
    );
    expect(pruned).toMatch(/Index (Only )?Scan using knowledge_terms_knowledge_base_id_term_chunk_id_pk/);
    expect(pruned).toMatch(
      /Index (Only )?Scan using knowledge_document_terms_knowledge_base_id_term_document_id_pk/,
    );
    expect(pruned).not.toMatch(/Seq Scan on knowledge_(terms|document_terms)/);

    const described = await plan(
      sql`select id, text from knowledge_chunks where id in (${`${base}-1`}, ${"x"}, ${"y"})`,
    );
    expect(described).not.toMatch(/Seq Scan on knowledge_chunks/);

    // The vector search's plan is checked by knowledge.test.ts ("searches a base of 5,000 chunks…").
  }, 120_000);
});

describe("MaxScore pruning", () => {
  it("returns the full scoring's ranking while skipping a common term that still reorders it", async () => {
    const { db } = builder.deps;
    const base = await createBase(builder, alice, { name: "Pruning" });
    // Four documents of 1,000 chunks: "rare" in 80 chunks, "scarce" in 200, "common" 0 to 3 times
    // in three chunks of four (3,000 postings, enough to be skipped), filler words around them.
    await insertDocuments(builder, base, {
      count: 4,
      chunks: 1_000,
      chunkText: (d) =>
        sql`(select string_agg('w' || ((n * 7919 + k * 104729 + ${d} * 31) % 500), ' ') from generate_series(1, 6 + n % 5) k)
            || case when (n + ${d}) % 50 = 0 then ' rare' else '' end
            || case when (n * 3 + ${d}) % 20 = 0 then ' scarce' else '' end
            || repeat(' common', (n * 13 + ${d}) % 4)`,
    });
    const full = async (query: string, limit: number) =>
      queryRows<{ id: string; score: number }>(
        db,
        bm25Sql(await scoredTerms(db, [base], [{ text: query, weight: 1 }], []), [], limit),
      );
    const ids = (rows: readonly { id: string }[]) => rows.map((row) => row.id);

    const terms = await scoredTerms(db, [base], [{ text: "rare scarce common", weight: 1 }], []);
    expect(commonTerms(terms, DOCUMENT_WEIGHT).map((term) => term.term)).toEqual(["common"]);
    for (const query of ["rare scarce common", "rare common"])
      for (const limit of [10, 40]) {
        const queryTerms = await scoredTerms(db, [base], [{ text: query, weight: 1 }], []);
        const pruned = await maxScoreRanking(db, queryTerms, limit);
        const expected = await full(query, limit);
        expect(pruned).not.toBeNull();
        expect(ids(pruned ?? [])).toEqual(ids(expected));
        for (const [i, row] of (pruned ?? []).entries())
          expect(row.score).toBeCloseTo(Number(expected[i]?.score), 9);
        expect(ids(await bm25Ranking(db, [base], query, limit))).toEqual(ids(expected));
      }
    // The skipped term matters: without it the order is another.
    expect(ids(await full("rare", 40))).not.toEqual(ids(await full("rare common", 40)));

    // Fewer chunks hold a rare term than asked for: nothing is proven, the full scoring answers.
    const few = await scoredTerms(db, [base], [{ text: "rare common", weight: 1 }], []);
    expect(await maxScoreRanking(db, few, 200)).toBeNull();
    expect(ids(await bm25Ranking(db, [base], "rare common", 200))).toEqual(
      ids(await full("rare common", 200)),
    );
  }, 120_000);
});
