import { manualClock } from "@app/core";
import { queryRows } from "@app/db";
import { type FakeEmbeddingReply, type FakeEmbeddings, startFakeEmbeddings } from "@app/testing";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestBuilder } from "../../test/harness.ts";
import {
  createBase,
  type DocumentJson,
  search,
  uploadOk,
  waitForDocument,
} from "../../test/knowledge-support.ts";
import { createBuilderApp } from "../app.ts";
import { LOCAL_EMBEDDING_DIMENSIONS, localEmbedding } from "./local-embedder.ts";
import { vectorLiteral } from "./vector-literal.ts";

// Retries are scheduled on the injected clock; tests move it instead of sleeping through backoff.
const clock = manualClock(new Date("2026-03-01T00:00:00Z"));
const builder = await startTestBuilder({ clock, env: { ALLOW_PRIVATE_URLS: "1" } });
const fakes: FakeEmbeddings[] = [];
afterAll(async () => {
  await builder.stop();
  await Promise.all(fakes.map((fake) => fake.close()));
});

/** A user whose openai-compatible credential points at a fresh fake, and a base embedding with it. */
async function providerBase(options: Parameters<typeof startFakeEmbeddings>[0] = {}) {
  const fake = await startFakeEmbeddings({ apiKey: "fake-key", ...options });
  fakes.push(fake);
  const { cookie } = await builder.signUp();
  const credential = await builder.request("/api/credentials", {
    method: "POST",
    cookie,
    json: { provider: "openai-compatible", api_key: "fake-key", base_url: fake.baseUrl },
  });
  expect(credential.status).toBe(201);
  const base = await createBase(builder, cookie, {
    name: "Provider",
    embedding: { provider: "openai-compatible", model: "fake-embed" },
  });
  return { fake, cookie, base };
}

const serverError: FakeEmbeddingReply = {
  error: { status: 500, message: "the embedding backend fell over" },
};
const advance = () => clock.advance(10_000);

// Without pgvector there is no embedding step, so no provider is ever called.
describe.skipIf(!builder.hasVector)("ingestion with an embedding provider (needs pgvector)", () => {
  it("retries transient provider errors with backoff and ends ready", async () => {
    const { fake, cookie, base } = await providerBase({
      script: ({ index }) => (index < 2 ? serverError : { embed: true }),
    });
    const document = await uploadOk(builder, cookie, {
      knowledgeBaseId: base,
      name: "a.txt",
      bytes: "retry me please",
    });
    const done = await waitForDocument(builder, cookie, document.id, { onPoll: advance });
    expect(done).toMatchObject({ status: "ready", progress: 100, error: null, attempts: 3 });
    expect(fake.calls).toHaveLength(3);
    const kb = (await (await builder.request(`/api/knowledge-bases/${base}`, { cookie })).json()) as {
      embedding: { dimensions: number };
    };
    expect(kb.embedding.dimensions).toBe(16);
  });

  it("gives up on a provider that always fails, with the reason, keeping no chunks", async () => {
    const { fake, cookie, base } = await providerBase({ script: () => serverError });
    const document = await uploadOk(builder, cookie, {
      knowledgeBaseId: base,
      name: "b.txt",
      bytes: "doomed text",
    });
    const failed = await waitForDocument(builder, cookie, document.id, { onPoll: advance });
    expect(failed.status).toBe("failed");
    expect(failed.error).toMatch(/^Gave up after 6 attempts: .*500.*the embedding backend fell over/);
    expect(fake.calls).toHaveLength(6);
    const chunks = await builder.request(`/api/rag/documents/${document.id}/chunks`, { cookie });
    expect(((await chunks.json()) as { data: unknown[] }).data).toEqual([]);
  });

  it("fails at once when the provider refuses the key", async () => {
    const { cookie, base } = await providerBase({ apiKey: "another-key" });
    const document = await uploadOk(builder, cookie, {
      knowledgeBaseId: base,
      name: "c.txt",
      bytes: "wrong key",
    });
    const failed = await waitForDocument(builder, cookie, document.id, { onPoll: advance });
    expect(failed).toMatchObject({ status: "failed", attempts: 1 });
    expect(failed.error).toContain("rejected the API key");
  });

  /** 300 paragraphs two to a 50-token chunk: 150 chunks, embedded in batches of 64, 64 and 22. */
  const threeBatches = {
    name: "long.txt",
    bytes: Array.from(
      { length: 300 },
      (_, i) => `Paragraph ${i} describes step ${i} of the long procedure in enough words to fill a chunk.`,
    ).join("\n\n"),
    extra: { chunk_size: "50", chunk_overlap: "0" },
  };

  it("moves through every status, with progress, on the event stream", async () => {
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const { cookie, base } = await providerBase({
      script: ({ index }) => (index === 0 ? { embed: true, after: gate } : { embed: true }),
    });
    // The worker takes one document at a time: this one holds it until the gate opens.
    const blocker = await uploadOk(builder, cookie, {
      knowledgeBaseId: base,
      name: "blocker.txt",
      bytes: "first in line",
    });
    await waitForDocument(builder, cookie, blocker.id, {
      until: (document) => document.status === "embedding",
    });
    const document = await uploadOk(builder, cookie, { knowledgeBaseId: base, ...threeBatches });
    const response = await builder.request(`/api/rag/documents/${document.id}/events`, { cookie });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    const events: DocumentJson[] = [];
    let buffered = "";
    const readEvents = async (until: () => boolean) => {
      while (!until()) {
        const { value, done } = await reader.read();
        if (done) return;
        buffered += decoder.decode(value, { stream: true });
        const frames = buffered.split("\n\n");
        buffered = frames.pop() ?? "";
        for (const frame of frames) {
          const data = frame.split("\n").find((line) => line.startsWith("data: "));
          if (frame.includes("event: document") && data)
            events.push(JSON.parse(data.slice(6)) as DocumentJson);
        }
      }
    };
    await readEvents(() => events.length > 0);
    release();
    await readEvents(() => false);

    const statuses = events.map((event) => event.status).filter((status, i, all) => status !== all[i - 1]);
    expect(statuses).toEqual(["queued", "parsing", "embedding", "ready"]);
    const progress = events.map((event) => event.progress);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
    expect(events.at(-1)).toMatchObject({ status: "ready", progress: 100, chunk_count: 150 });
    expect(progress.filter((value) => value > 10 && value < 100).length).toBeGreaterThanOrEqual(2);
  });

  it("reads each batch's texts just before embedding it, not the whole document's up front", async () => {
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const { fake, cookie, base } = await providerBase({
      script: ({ index }) => (index === 0 ? { embed: true, after: gate } : { embed: true }),
    });
    const document = await uploadOk(builder, cookie, { knowledgeBaseId: base, ...threeBatches });
    await waitForDocument(builder, cookie, document.id, { until: () => fake.calls.length > 0 });
    // While the first batch is being embedded, the third batch's chunks change: the worker embeds
    // what they hold when their turn comes.
    await builder.deps.db.execute(
      sql`update knowledge_chunks set text = 'rewritten while the first batch was embedded'
        where document_id = ${document.id} and position >= 128`,
    );
    release();
    expect((await waitForDocument(builder, cookie, document.id)).status).toBe("ready");
    expect(fake.calls.map((call) => call.input.length)).toEqual([64, 64, 22]);
    expect(fake.calls[0]?.input[0]).toMatch(/^Paragraph 0 /);
    expect(new Set(fake.calls[2]?.input)).toEqual(new Set(["rewritten while the first batch was embedded"]));
  });

  it("another process finishes a document whose worker died mid-ingestion, from the batches not saved", async () => {
    const { fake, cookie, base } = await providerBase({
      script: ({ index }) => (index === 1 ? { hang: true } : { embed: true }),
    });
    const document = await uploadOk(builder, cookie, { knowledgeBaseId: base, ...threeBatches });
    // The second batch's call hangs once the first batch is saved.
    await waitForDocument(builder, cookie, document.id, {
      until: (current) => fake.calls.length > 1 && current.progress > 10,
    });
    expect((await waitForDocument(builder, cookie, document.id, { until: () => true })).status).toBe(
      "embedding",
    );

    // The first worker is stuck and never comes back: a second app on the same database takes over
    // once the lease has expired, and embeds from the second batch on.
    const second = createBuilderApp(builder.deps);
    await second.start();
    try {
      clock.advance(61_000);
      const done = await waitForDocument(builder, cookie, document.id);
      expect(done).toMatchObject({ status: "ready", chunk_count: 150, attempts: 2 });
      expect(fake.calls.map((call) => call.input.length)).toEqual([64, 64, 64, 22]);
      expect(fake.calls[2]?.input).toEqual(fake.calls[1]?.input);
    } finally {
      await second.stop();
    }

    // Now the stuck call errors out; the first worker lost its lease, so it must not touch the
    // document. Once it has ingested something else it has certainly dealt with that error.
    await fake.close();
    const next = await uploadOk(builder, cookie, {
      knowledgeBaseId: await createBase(builder, cookie, { name: "Local" }),
      name: "after.txt",
      bytes: "the first worker is free again",
    });
    expect((await waitForDocument(builder, cookie, next.id)).status).toBe("ready");
    const after = await waitForDocument(builder, cookie, document.id, { until: () => true });
    expect(after).toMatchObject({ status: "ready", chunk_count: 150, error: null });
    const hits = await search(builder, cookie, base, { query: "long procedure", mode: "fulltext" });
    expect(new Set(hits.data.map((hit) => hit.document_id))).toEqual(new Set([document.id]));
  });

  describe("hybrid retrieval against a semantic provider", () => {
    // A fake "semantic" model: words of one concept share a dimension; other words only add a
    // faint hashed component, so an exact rare code carries almost no vector signal.
    const concepts: Record<string, number> = {
      cat: 0,
      cats: 0,
      feline: 0,
      felines: 0,
      kitten: 0,
      kittens: 0,
      car: 1,
      sedan: 1,
      vehicle: 1,
      automobile: 1,
      tires: 1,
      battery: 1,
      invoice: 2,
      invoices: 2,
      paid: 2,
      bank: 2,
    };
    const embed = (text: string) => {
      const vector = new Array<number>(16).fill(0);
      for (const word of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
        const concept = concepts[word];
        if (concept !== undefined) vector[concept] = (vector[concept] ?? 0) + 1;
        else {
          let hash = 7;
          for (const char of word) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
          vector[8 + (hash % 8)] = (vector[8 + (hash % 8)] ?? 0) + 0.05;
        }
      }
      const norm = Math.hypot(...vector) || 1;
      return vector.map((value) => value / norm);
    };
    let cookie: string;
    let base: string;
    beforeAll(async () => {
      ({ cookie, base } = await providerBase({ embed }));
      const corpus: [string, string][] = [
        ["cats.txt", "The cat sleeps on the warm windowsill all afternoon."],
        ["felines.txt", "Feline companions groom themselves after every meal."],
        ["kittens.txt", "A kitten needs vaccinations during its first months."],
        ["sedan.txt", "Our sedan needs new tires before the winter trip."],
        ["dashboard.txt", "Vehicle diagnostics: the dashboard shows QX7731 when the battery is weak."],
        ["invoices.txt", "Invoices are paid by bank transfer within thirty days."],
      ];
      for (const [name, text] of corpus) {
        const document = await uploadOk(builder, cookie, { knowledgeBaseId: base, name, bytes: text });
        expect((await waitForDocument(builder, cookie, document.id, { onPoll: advance })).status).toBe(
          "ready",
        );
      }
    });
    const names = (hits: { document_name: string }[]) => hits.map((hit) => hit.document_name);

    it("hybrid finds a chunk by an exact rare term that vector search ranks low", async () => {
      const query = { query: "cat QX7731", top_k: 3 };
      const vector = await search(builder, cookie, base, { ...query, mode: "vector", top_k: 6 });
      expect(names(vector.data).indexOf("dashboard.txt")).toBeGreaterThanOrEqual(3);
      const fulltext = await search(builder, cookie, base, { ...query, mode: "fulltext" });
      expect(names(fulltext.data)).toContain("dashboard.txt");
      const hybrid = await search(builder, cookie, base, { ...query, mode: "hybrid" });
      expect(names(hybrid.data).slice(0, 2)).toContain("dashboard.txt");
    });

    it("hybrid finds a paraphrase that full-text search misses", async () => {
      const fulltext = await search(builder, cookie, base, { query: "automobile", mode: "fulltext" });
      expect(fulltext.data).toEqual([]);
      const vector = await search(builder, cookie, base, { query: "automobile", mode: "vector", top_k: 2 });
      expect(names(vector.data).sort()).toEqual(["dashboard.txt", "sedan.txt"]);
      const hybrid = await search(builder, cookie, base, { query: "automobile", mode: "hybrid", top_k: 2 });
      expect(names(hybrid.data).sort()).toEqual(["dashboard.txt", "sedan.txt"]);
    });
  });
});

describe.skipIf(!builder.hasVector)(
  "ingestion with the local embedder on its thread (needs pgvector)",
  () => {
    it("stores exactly the vectors embedding on the main thread gives, heading path in front, across batches", async () => {
      const { cookie } = await builder.signUp();
      const base = await createBase(builder, cookie, { name: "Local" });
      const sections = Array.from(
        { length: 10 },
        (_, s) =>
          `## Part ${s}\n\n` +
          Array.from(
            { length: 40 },
            (_, p) => `Paragraph ${p} of part ${s} explains how the rotor ${s * 40 + p} turns and why.`,
          ).join("\n\n"),
      );
      const document = await uploadOk(builder, cookie, {
        knowledgeBaseId: base,
        name: "manual.md",
        bytes: `# Manual\n\n${sections.join("\n\n")}`,
        extra: { chunk_size: "50", chunk_overlap: "0" },
      });
      const done = await waitForDocument(builder, cookie, document.id);
      expect(done.status).toBe("ready");
      // More than two batches of 64, so the pipeline (embed n + 1 while n is written) ran.
      expect(done.chunk_count).toBeGreaterThan(128);
      const chunks = await queryRows<{ id: string; text: string; heading_path: string[] }>(
        builder.deps.db,
        sql`select id, text, heading_path from knowledge_chunks where document_id = ${document.id} order by position`,
      );
      const expected = chunks.map((chunk) => {
        const input =
          chunk.heading_path.length > 0 ? `${chunk.heading_path.join(" > ")}\n\n${chunk.text}` : chunk.text;
        return { id: chunk.id, v: vectorLiteral(localEmbedding(input, LOCAL_EMBEDDING_DIMENSIONS)) };
      });
      expect(chunks[1]?.heading_path).toEqual(["Manual", "Part 0"]);
      const [same] = await queryRows<{ same: number; all: number }>(
        builder.deps.db,
        sql`select count(*) filter (where c.embedding = e.v::vector and c.dimensions = 384)::int as same, count(*)::int as all
        from knowledge_chunks c join jsonb_to_recordset(${JSON.stringify(expected)}::jsonb) as e(id text, v text) on e.id = c.id`,
      );
      expect(same).toEqual({ same: chunks.length, all: chunks.length });
    });

    it("fails the document with the thread's reason when the thread cannot embed it, and carries on", async () => {
      // A builder whose embedder thread gets 16 MB of heap, less than a batch of huge chunks of
      // distinct words needs (the default is 64 MB).
      const small = await startTestBuilder({ deps: { ingestion: { embedderThreadMemoryMb: 16 } } });
      try {
        const { cookie } = await small.signUp();
        const base = await createBase(small, cookie, { name: "Local" });
        const words = Array.from(
          { length: 200_000 },
          (_, i) => `w${i.toString(36)}q${(i * 7919).toString(36)}`,
        );
        const document = await uploadOk(small, cookie, {
          knowledgeBaseId: base,
          name: "words.txt",
          bytes: words.join(" "),
          extra: { chunk_size: "8000", chunk_overlap: "0" },
        });
        const failed = await waitForDocument(small, cookie, document.id, { timeoutMs: 60_000 });
        expect(failed).toMatchObject({
          status: "failed",
          attempts: 1,
          error: "The local embedder's thread ran out of memory (its limit is 16 MB).",
        });
        const chunks = await small.request(`/api/rag/documents/${document.id}/chunks`, { cookie });
        expect(((await chunks.json()) as { data: unknown[] }).data).toEqual([]);
        // The service is up, and the next document gets a new thread.
        const next = await uploadOk(small, cookie, {
          knowledgeBaseId: base,
          name: "ok.txt",
          bytes: "rotate keys",
        });
        expect((await waitForDocument(small, cookie, next.id)).status).toBe("ready");
        const hits = await search(small, cookie, base, { query: "rotate keys", mode: "vector" });
        expect(hits.data.map((hit) => hit.document_id)).toEqual([next.id]);
      } finally {
        await small.stop();
      }
    });
  },
);

describe.skipIf(builder.hasVector)("ingestion without pgvector", () => {
  it("stores chunks for full-text search without calling the embedding provider", async () => {
    const { fake, cookie, base } = await providerBase();
    const document = await uploadOk(builder, cookie, {
      knowledgeBaseId: base,
      name: "e.txt",
      bytes: "searchable by words",
    });
    expect((await waitForDocument(builder, cookie, document.id)).status).toBe("ready");
    expect(fake.calls).toHaveLength(0);
    expect((await search(builder, cookie, base, { query: "searchable" })).data[0]?.document_id).toBe(
      document.id,
    );
  });
});
