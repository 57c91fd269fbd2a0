import { createHash } from "node:crypto";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { queryRows } from "@app/db";
import { and, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestBuilder } from "../../test/harness.ts";
import {
  createBase,
  type DocumentJson,
  insertDocuments,
  makeDocx,
  makePdf,
  search,
  upload,
  uploadOk,
  waitForDocument,
} from "../../test/knowledge-support.ts";
import { workspaces } from "../workspaces/schema.ts";
import { localEmbedding } from "./local-embedder.ts";
import { knowledgeDocuments } from "./schema.ts";
import { hnswScanSettings } from "./search-knowledge.ts";
import { vectorLiteral } from "./vector-literal.ts";

// A 1 MB cap keeps the 413 test small; everything else here is far below it.
const builder = await startTestBuilder({ env: { RAG_MAX_UPLOAD_MB: "1" } });
let alice: string;
let aliceUserId: string;
let bob: string;
beforeAll(async () => {
  const signedUp = await builder.signUp();
  alice = signedUp.cookie;
  aliceUserId = signedUp.userId;
  bob = (await builder.signUp()).cookie;
});
afterAll(() => builder.stop());

const filesDir = () => join(builder.deps.config.dataDir, "builder", "files");
function storedFiles(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    let entries: import("node:fs").Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (entry.isDirectory()) walk(join(dir, entry.name));
      else out.push(entry.name);
    }
  };
  walk(filesDir());
  return out;
}

async function chunksOf(cookie: string, documentId: string) {
  const response = await builder.request(`/api/rag/documents/${documentId}/chunks?limit=100`, { cookie });
  expect(response.status).toBe(200);
  return (
    (await response.json()) as {
      data: {
        id: string;
        position: number;
        text: string;
        char_start: number;
        char_end: number;
        page: number | null;
        heading_path: string[];
        token_count: number;
      }[];
    }
  ).data;
}

async function documentsOf(cookie: string, knowledgeBaseId: string): Promise<DocumentJson[]> {
  const response = await builder.request(`/api/knowledge-bases/${knowledgeBaseId}/documents?limit=100`, {
    cookie,
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { data: DocumentJson[] }).data;
}

describe("knowledge bases", () => {
  it("creates, lists, reads and deletes a knowledge base, with the local embedder by default", async () => {
    const response = await builder.request("/api/knowledge-bases", {
      method: "POST",
      cookie: alice,
      json: { name: "Handbook" },
    });
    expect(response.status).toBe(201);
    const created = (await response.json()) as { id: string; embedding: unknown };
    expect(created.id).toMatch(/^kb_/);
    expect(created.embedding).toEqual({ provider: "local", model: "feature-hashing-v1", dimensions: 384 });

    const list = (await (await builder.request("/api/knowledge-bases", { cookie: alice })).json()) as {
      data: { id: string }[];
    };
    expect(list.data.map((base) => base.id)).toContain(created.id);
    expect((await builder.request(`/api/knowledge-bases/${created.id}`, { cookie: alice })).status).toBe(200);
    expect(
      (await builder.request(`/api/knowledge-bases/${created.id}`, { method: "DELETE", cookie: alice }))
        .status,
    ).toBe(204);
    expect((await builder.request(`/api/knowledge-bases/${created.id}`, { cookie: alice })).status).toBe(404);
  });

  it("refuses an embedding provider that has no embedding models", async () => {
    const response = await builder.request("/api/knowledge-bases", {
      method: "POST",
      cookie: alice,
      json: { name: "x", embedding: { provider: "anthropic", model: "claude" } },
    });
    expect(response.status).toBe(422);
    const body = (await response.json()) as { error: { param: string } };
    expect(body.error.param).toBe("embedding.provider");
  });
});

describe("ingestion of every format", () => {
  let base: string;
  const ids: Record<string, string> = {};
  beforeAll(async () => {
    base = await createBase(builder, alice, { name: "Formats" });
    const uploads: Parameters<typeof uploadOk>[2][] = [
      {
        knowledgeBaseId: base,
        name: "guide.md",
        bytes:
          "# Setup\n\nInstall the quokka agent first.\n\n## Network\n\nOpen port 8443 for the tunnel.\n\n```\n# not a heading\n```\n",
      },
      { knowledgeBaseId: base, name: "notes.txt", bytes: "Plain notes mention the axolotl migration.\n" },
      {
        knowledgeBaseId: base,
        name: "page.html",
        bytes:
          "<html><head><title>T</title><style>.x{color:red}</style></head><body><script>var secretScript = 1;</script><h1>Billing</h1><p>Invoices are sent &amp; paid monthly via narwhal pay.</p></body></html>",
      },
      { knowledgeBaseId: base, name: "people.csv", bytes: 'name,city\nAda,Paris\n"Grace, R.",Arlington\n' },
      {
        knowledgeBaseId: base,
        name: "config.json",
        bytes: JSON.stringify({ service: { name: "pelican", replicas: 3 }, tags: ["blue", "green"] }),
      },
      {
        knowledgeBaseId: base,
        name: "report.pdf",
        bytes: await makePdf([
          ["Quarterly report", "Revenue grew in the ocelot region."],
          ["Second page about tapir logistics."],
        ]),
      },
      {
        knowledgeBaseId: base,
        name: "policy.docx",
        bytes: await makeDocx("Refund policy", ["Refunds for the gecko plan take five days."]),
      },
    ];
    for (const fields of uploads) ids[fields.name] = (await uploadOk(builder, alice, fields)).id;
    for (const id of Object.values(ids)) {
      const document = await waitForDocument(builder, alice, id);
      expect(document.status, `${document.name}: ${document.error}`).toBe("ready");
    }
  });

  it("answers 202 with the queued document and records format, size and checksum", async () => {
    const response = await upload(builder, alice, {
      knowledgeBaseId: base,
      name: "small.txt",
      bytes: "tiny file",
    });
    expect(response.status).toBe(202);
    const document = (await response.json()) as DocumentJson;
    expect(document).toMatchObject({
      status: "queued",
      progress: 0,
      format: "text",
      size_bytes: 9,
      knowledge_base_id: base,
    });
    expect(document.checksum).toBe(createHash("sha256").update("tiny file").digest("hex"));
  });

  it("parses Markdown into sections with heading paths, ignoring # inside code fences", async () => {
    const chunks = await chunksOf(alice, ids["guide.md"] as string);
    expect(chunks.map((chunk) => chunk.heading_path)).toEqual([["Setup"], ["Setup", "Network"]]);
    expect(chunks[1]?.text).toContain("port 8443");
    expect(chunks[1]?.text).toContain("# not a heading");
  });

  it("ingests extracted text holding NUL or a lone surrogate, its chunks holding U+FFFD in their place", async () => {
    // A text file with NUL bytes is refused as binary; extraction (here JSON's escapes) still yields them.
    const document = await uploadOk(builder, alice, {
      knowledgeBaseId: base,
      name: "escapes.json",
      bytes: '{"note":"capybara\\u0000pen","odd":"x\\ud800"}',
    });
    const ready = await waitForDocument(builder, alice, document.id);
    expect(ready.status, ready.error ?? "").toBe("ready");
    const chunks = await chunksOf(alice, document.id);
    expect(chunks.map((chunk) => chunk.text)).toEqual(["note: capybara\uFFFDpen\nodd: x\uFFFD"]);
  });

  it("parses plain text", async () => {
    const chunks = await chunksOf(alice, ids["notes.txt"] as string);
    expect(chunks.map((chunk) => chunk.text)).toEqual(["Plain notes mention the axolotl migration."]);
  });

  it("turns HTML into text without scripts or styles, keeping headings", async () => {
    const chunks = await chunksOf(alice, ids["page.html"] as string);
    const text = chunks.map((chunk) => chunk.text).join("\n");
    expect(text).toContain("Invoices are sent & paid monthly via narwhal pay.");
    expect(text).not.toContain("secretScript");
    expect(text).not.toContain("color:red");
    expect(chunks.at(-1)?.heading_path).toEqual(["Billing"]);
  });

  it("reads CSV as one header: value line per row", async () => {
    const chunks = await chunksOf(alice, ids["people.csv"] as string);
    expect(chunks[0]?.text).toBe("name: Ada; city: Paris\nname: Grace, R.; city: Arlington");
  });

  it("reads JSON as path: value lines", async () => {
    const chunks = await chunksOf(alice, ids["config.json"] as string);
    expect(chunks[0]?.text).toBe("service.name: pelican\nservice.replicas: 3\ntags[0]: blue\ntags[1]: green");
  });

  it("reads a PDF generated by pdf-lib page by page", async () => {
    const document = await waitForDocument(builder, alice, ids["report.pdf"] as string);
    expect(document.page_count).toBe(2);
    const chunks = await chunksOf(alice, document.id);
    expect(chunks.map((chunk) => chunk.page)).toEqual([1, 2]);
    expect(chunks[0]?.text).toContain("ocelot region");
    expect(chunks[1]?.text).toContain("tapir logistics");
  });

  it("reads a DOCX generated by the docx library with its heading", async () => {
    const chunks = await chunksOf(alice, ids["policy.docx"] as string);
    expect(chunks).toHaveLength(1);
    expect(chunks[0]?.heading_path).toEqual(["Refund policy"]);
    expect(chunks[0]?.text).toContain("Refunds for the gecko plan take five days.");
  });

  it("finds each format's text by full-text search, with document name, position and score", async () => {
    for (const [term, name] of [
      ["quokka", "guide.md"],
      ["axolotl", "notes.txt"],
      ["narwhal", "page.html"],
      ["Arlington", "people.csv"],
      ["pelican", "config.json"],
      ["tapir", "report.pdf"],
      ["gecko", "policy.docx"],
    ] as const) {
      const result = await search(builder, alice, base, { query: term, mode: "fulltext" });
      expect(result.status).toBe(200);
      expect(result.data[0]?.document_name, term).toBe(name);
      expect(result.data[0]?.score).toBeGreaterThan(0);
      expect(typeof result.data[0]?.position).toBe("number");
    }
  });
});

describe("chunking options", () => {
  it("splits at chunk_size tokens with chunk_overlap tokens shared between neighbours", async () => {
    const base = await createBase(builder, alice, { name: "Chunks" });
    const sentences = Array.from(
      { length: 60 },
      (_, i) => `Sentence number ${i} talks about topic ${i % 7}.`,
    );
    const text = `${sentences.slice(0, 30).join(" ")}\n\n${sentences.slice(30).join(" ")}`;
    const document = await uploadOk(builder, alice, {
      knowledgeBaseId: base,
      name: "long.txt",
      bytes: text,
      extra: { chunk_size: "60", chunk_overlap: "15" },
    });
    const ready = await waitForDocument(builder, alice, document.id);
    expect(ready.status).toBe("ready");
    const chunks = await chunksOf(alice, document.id);
    expect(chunks.length).toBeGreaterThan(5);
    expect(ready.chunk_count).toBe(chunks.length);
    chunks.forEach((chunk, i) => {
      expect(chunk.position).toBe(i);
      expect(chunk.text.length).toBeLessThanOrEqual(60 * 4);
      expect(text.slice(chunk.char_start, chunk.char_end)).toBe(chunk.text);
      const next = chunks[i + 1];
      if (next) {
        // Neighbours overlap by at most the overlap, and by something.
        expect(next.char_start).toBeLessThan(chunk.char_end);
        expect(chunk.char_end - next.char_start).toBeLessThanOrEqual(15 * 4);
      }
    });
    // Chunks end on sentence ends where one is in reach, not mid-word.
    expect(chunks.slice(0, -1).every((chunk) => /[.]$/.test(chunk.text))).toBe(true);
    // Everything is covered.
    expect(chunks[0]?.char_start).toBe(0);
    expect(chunks.at(-1)?.char_end).toBe(text.length);
  });

  it("refuses an overlap that is not smaller than the chunk size", async () => {
    const base = await createBase(builder, alice, { name: "Bad options" });
    const response = await upload(builder, alice, {
      knowledgeBaseId: base,
      name: "a.txt",
      bytes: "text",
      extra: { chunk_size: "100", chunk_overlap: "100" },
    });
    expect(response.status).toBe(422);
    expect(((await response.json()) as { error: { param: string } }).error.param).toBe("chunk_overlap");
  });
});

describe("upload errors leave nothing behind", () => {
  let base: string;
  beforeAll(async () => {
    base = await createBase(builder, alice, { name: "Errors" });
  });

  it("413 past RAG_MAX_UPLOAD_MB, 415 for unknown or mismatched types, 422 for empty files, 404 for an unknown base", async () => {
    const before = storedFiles().length;
    const tooLarge = await upload(builder, alice, {
      knowledgeBaseId: base,
      name: "big.txt",
      bytes: "a".repeat(1024 * 1024 + 10),
    });
    expect(tooLarge.status).toBe(413);
    expect(((await tooLarge.json()) as { error: { code: string; message: string } }).error).toMatchObject({
      code: "file_too_large",
      message: expect.stringContaining("1 MB"),
    });

    const png = await upload(builder, alice, {
      knowledgeBaseId: base,
      name: "image.png",
      bytes: new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0]),
      type: "image/png",
    });
    expect(png.status).toBe(415);
    const fakePdf = await upload(builder, alice, {
      knowledgeBaseId: base,
      name: "fake.pdf",
      bytes: "just text, not a PDF",
    });
    expect(fakePdf.status).toBe(415);
    const binaryText = await upload(builder, alice, {
      knowledgeBaseId: base,
      name: "notes.txt",
      bytes: new Uint8Array([0x68, 0x69, 0x00, 0xff, 0xfe]),
    });
    expect(binaryText.status).toBe(415);
    expect(((await binaryText.json()) as { error: { code: string } }).error.code).toBe(
      "unsupported_file_type",
    );

    const empty = await upload(builder, alice, { knowledgeBaseId: base, name: "empty.txt", bytes: "" });
    expect(empty.status).toBe(422);
    expect(((await empty.json()) as { error: { code: string } }).error.code).toBe("empty_file");

    const unknownBase = await upload(builder, alice, {
      knowledgeBaseId: "kb_missing",
      name: "a.txt",
      bytes: "hello",
    });
    expect(unknownBase.status).toBe(404);

    const notMultipart = await builder.request("/api/rag/upload", {
      method: "POST",
      cookie: alice,
      json: { file: "x" },
    });
    expect(notMultipart.status).toBe(415);

    const noFile = new FormData();
    noFile.set("knowledge_base_id", base);
    const missingFile = await builder.request("/api/rag/upload", {
      method: "POST",
      cookie: alice,
      body: noFile,
    });
    expect(missingFile.status).toBe(422);
    expect(((await missingFile.json()) as { error: { param: string } }).error.param).toBe("file");

    expect(await documentsOf(alice, base)).toEqual([]);
    expect(storedFiles().length).toBe(before);
  });

  it("409 for the same content twice in one base, but accepts it in another", async () => {
    const first = await uploadOk(builder, alice, {
      knowledgeBaseId: base,
      name: "dup.txt",
      bytes: "duplicate me",
    });
    const again = await upload(builder, alice, {
      knowledgeBaseId: base,
      name: "renamed.txt",
      bytes: "duplicate me",
    });
    expect(again.status).toBe(409);
    const error = ((await again.json()) as { error: { code: string; message: string } }).error;
    expect(error.code).toBe("duplicate_document");
    expect(error.message).toContain(first.id);
    const other = await createBase(builder, alice, { name: "Other" });
    expect(
      (await upload(builder, alice, { knowledgeBaseId: other, name: "dup.txt", bytes: "duplicate me" }))
        .status,
    ).toBe(202);
    expect((await documentsOf(alice, base)).map((document) => document.id)).toEqual([first.id]);
  });

  it("a corrupt PDF fails with a clear reason and keeps no chunks", async () => {
    const document = await uploadOk(builder, alice, {
      knowledgeBaseId: base,
      name: "broken.pdf",
      bytes: "%PDF-1.7\nthis is not really a pdf body\n%%EOF",
    });
    const failed = await waitForDocument(builder, alice, document.id);
    expect(failed.status).toBe("failed");
    expect(failed.error).toMatch(/^The PDF could not be read: /);
    expect(await chunksOf(alice, document.id)).toEqual([]);
    expect((await search(builder, alice, base, { query: "really pdf body", mode: "fulltext" })).data).toEqual(
      [],
    );
  });
});

describe("search modes", () => {
  let base: string;
  beforeAll(async () => {
    base = await createBase(builder, alice, { name: "Search" });
    const documents = [
      [
        "rotate.md",
        "# API keys\n\nTo rotate an API key, create a new key, deploy it, then revoke the old key.",
      ],
      ["billing.md", "# Billing\n\nInvoices are issued on the first day of every month in rupiah."],
      ["outage.md", "# Incidents\n\nDuring the outage the error code ZQX-9137 appeared on the status page."],
    ];
    for (const [name, text] of documents) {
      const document = await uploadOk(builder, alice, {
        knowledgeBaseId: base,
        name: name as string,
        bytes: text as string,
      });
      expect((await waitForDocument(builder, alice, document.id)).status).toBe("ready");
    }
  });

  it("full-text search ranks the chunk holding the words, and min_score filters", async () => {
    const result = await search(builder, alice, base, {
      query: "how do I rotate my key",
      mode: "fulltext",
      top_k: 3,
    });
    expect(result.mode).toBe("fulltext");
    expect(result.data[0]?.document_name).toBe("rotate.md");
    expect(result.data.every((hit) => hit.document_name !== "billing.md")).toBe(true);
    const strict = await search(builder, alice, base, {
      query: "rotate key",
      mode: "fulltext",
      min_score: 1000,
    });
    expect(strict.data).toEqual([]);
  });

  it.skipIf(!builder.hasVector)("vector and hybrid search rank with the embedder (pgvector)", async () => {
    const vector = await search(builder, alice, base, { query: "rotating keys", mode: "vector", top_k: 3 });
    expect(vector.status).toBe(200);
    expect(vector.data[0]?.document_name).toBe("rotate.md");
    expect(vector.data[0]?.score).toBeLessThanOrEqual(1);
    const hybrid = await search(builder, alice, base, { query: "ZQX-9137", top_k: 3 });
    expect(hybrid.mode).toBe("hybrid");
    expect(hybrid.data[0]?.document_name).toBe("outage.md");
  });

  it.skipIf(!builder.hasVector)(
    "vector search skips the indexed chunks of a document that is still ingesting",
    async () => {
      const { db } = builder.deps;
      // As ingestion leaves a document between two embedding batches: chunks in the HNSW index
      // (width set), the document not ready.
      const pendingId = (
        await insertDocuments(builder, base, {
          count: 1,
          chunks: 1,
          chunkText: () => sql`'rotating keys'`,
          status: "embedding",
          vector: localEmbedding("rotating keys"),
        })
      )[0] as string;
      const pendingChunk = `${pendingId}-0`;
      try {
        const found = async () =>
          (
            await search(builder, alice, base, { query: "rotating keys", mode: "vector", top_k: 10 })
          ).data.map((hit) => hit.chunk_id);
        expect(await found()).not.toContain(pendingChunk);
        await db
          .update(knowledgeDocuments)
          .set({ status: "ready" })
          .where(eq(knowledgeDocuments.id, pendingId));
        expect(await found()).toContain(pendingChunk);
      } finally {
        await db.delete(knowledgeDocuments).where(eq(knowledgeDocuments.id, pendingId));
      }
    },
  );

  it("sizes the HNSW candidate list from the chunks searched, for the search's transaction only", async () => {
    const { db } = builder.deps;
    const settingsFor = (limit: number) =>
      db.transaction(async (tx) => {
        await tx.execute(hnswScanSettings([base], limit));
        const [row] = await queryRows<{ ef: string; seq: string; sort: string; iterative: string }>(
          tx,
          sql`select current_setting('hnsw.ef_search') as ef, current_setting('enable_seqscan') as seq,
            current_setting('enable_sort') as sort, current_setting('hnsw.iterative_scan') as iterative`,
        );
        return row;
      });
    // Three one-chunk documents: the floor, or four candidates per neighbour asked for.
    expect(await settingsFor(10)).toEqual({ ef: "100", seq: "off", sort: "on", iterative: "relaxed_order" });
    expect((await settingsFor(50))?.ef).toBe("200");
    // With the two other documents' chunk each: 4,999 chunks, then 5,000.
    await setRotateChunkCount(4_997);
    expect(await settingsFor(10)).toMatchObject({ ef: "177", sort: "on" });
    await setRotateChunkCount(4_998);
    expect(await settingsFor(10)).toMatchObject({ ef: "177", sort: "off" });
    await setRotateChunkCount(12_000);
    expect(await settingsFor(10)).toMatchObject({ ef: "274", sort: "off" });
    await setRotateChunkCount(5_000_000);
    expect((await settingsFor(10))?.ef).toBe("1000");
    await setRotateChunkCount(1);
    const [after] = await queryRows<{ seq: string; sort: string }>(
      db,
      sql`select current_setting('enable_seqscan') as seq, current_setting('enable_sort') as sort`,
    );
    expect(after).toEqual({ seq: "on", sort: "on" });
  });

  it.skipIf(!builder.hasVector)(
    "searches a base of 5,000 chunks or more through the HNSW index where the planner would sort",
    async () => {
      const { db } = builder.deps;
      const [rotate] = await db
        .select({ id: knowledgeDocuments.id, workspaceId: knowledgeDocuments.workspaceId })
        .from(knowledgeDocuments)
        .where(and(eq(knowledgeDocuments.knowledgeBaseId, base), eq(knowledgeDocuments.name, "rotate.md")));
      const query = vectorLiteral(localEmbedding("rotate a key"));
      const planOf = async (tx: typeof db) =>
        (
          await queryRows<{ "QUERY PLAN": string }>(
            tx,
            sql`explain select id from knowledge_chunks where dimensions = 384 and knowledge_base_id = ${base}
              and document_id not in (select id from knowledge_documents where knowledge_base_id = ${base} and status <> 'ready')
              order by embedding::vector(384) <=> ${query}::vector(384) limit 10`,
          )
        )
          .map((line) => line["QUERY PLAN"])
          .join("\n");
      const rolledBack = new Error("roll back the filler chunks");
      const plans: { settings?: string; planners?: string } = {};
      // 500 chunks of random directions, analyzed, counted as 6,001, then rolled back.
      await db
        .transaction(async (tx) => {
          await tx.execute(sql`
            insert into knowledge_chunks (id, workspace_id, knowledge_base_id, document_id, position, text,
              char_start, char_end, token_count, dimensions, embedding)
            select 'chk_filler_' || n, ${rotate?.workspaceId}, ${base}, ${rotate?.id}, n, 'filler', 0, 6, 1, 384,
              (select array_agg(random() - 0.5) from generate_series(1, 384) where n > 0)::vector
            from generate_series(1, 500) as n`);
          await tx
            .update(knowledgeDocuments)
            .set({ chunkCount: 6_001 })
            .where(eq(knowledgeDocuments.id, rotate?.id as string));
          await tx.execute(sql`analyze knowledge_chunks`);
          await tx.execute(hnswScanSettings([base], 10));
          // The longest candidate list, which the planner prices highest.
          await tx.execute(sql`set local hnsw.ef_search = 1000`);
          plans.settings = await planOf(tx);
          await tx.execute(sql`set local enable_sort = on`);
          plans.planners = await planOf(tx);
          throw rolledBack;
        })
        .catch((error: unknown) => {
          if (error !== rolledBack) throw error;
        });
      expect(plans.settings).toContain("Index Scan using knowledge_chunks_embedding_384_idx");
      // Left to itself, the planner would compute every distance and sort.
      expect(plans.planners).not.toContain("knowledge_chunks_embedding_384_idx");
      expect(plans.planners).toContain("Sort");
    },
  );

  /** Pretends rotate.md has `count` chunks, as the HNSW settings read it. */
  async function setRotateChunkCount(count: number): Promise<void> {
    await builder.deps.db
      .update(knowledgeDocuments)
      .set({ chunkCount: count })
      .where(and(eq(knowledgeDocuments.knowledgeBaseId, base), eq(knowledgeDocuments.name, "rotate.md")));
  }

  it.skipIf(builder.hasVector)(
    "without pgvector, vector and hybrid answer a clear 422 and fulltext is the default",
    async () => {
      for (const mode of ["vector", "hybrid"]) {
        const result = await search(builder, alice, base, { query: "rotate", mode });
        expect(result.status).toBe(422);
        expect(result.error?.code).toBe("vector_search_unavailable");
        expect(result.error?.message).toContain("pgvector");
      }
      const defaulted = await search(builder, alice, base, { query: "rotate" });
      expect(defaulted.mode).toBe("fulltext");
      expect(defaulted.data[0]?.document_name).toBe("rotate.md");
    },
  );

  it("serves agents and workflows with citations, only from the caller's workspace", async () => {
    const [workspace] = await builder.deps.db
      .select()
      .from(workspaces)
      .where(eq(workspaces.ownerUserId, aliceUserId));
    const workspaceId = workspace?.id as string;
    // A workflow's knowledge_search Tool node answers citations with document and chunk ids.
    const created = await builder.request("/api/workflows", {
      method: "POST",
      cookie: alice,
      json: {
        name: "search",
        graph: {
          nodes: [
            { id: "start", type: "start", position: { x: 0, y: 0 }, data: { inputs: [] } },
            {
              id: "find",
              type: "tool",
              position: { x: 0, y: 0 },
              data: {
                tool: "knowledge_search",
                args: { knowledge_base_ids: [base], query: "invoices in rupiah", top_k: 2 },
              },
            },
            {
              id: "done",
              type: "end",
              position: { x: 0, y: 0 },
              data: { outputs: [{ name: "hits", value: "{{find.result}}" }] },
            },
          ],
          edges: [
            { id: "a", source: "start", target: "find" },
            { id: "b", source: "find", target: "done" },
          ],
        },
      },
    });
    expect(created.status, await created.clone().text()).toBe(201);
    const workflowId = ((await created.json()) as { id: string }).id;
    const run = (await (
      await builder.request(`/api/workflows/${workflowId}/runs`, {
        method: "POST",
        cookie: alice,
        json: { inputs: {} },
      })
    ).json()) as { status: string; outputs: { hits: Record<string, unknown>[] } };
    expect(run.status).toBe("succeeded");
    const forWorkflows = run.outputs.hits;
    expect(forWorkflows[0]).toMatchObject({
      knowledge_base_id: base,
      document_name: "billing.md",
      document_id: expect.stringMatching(/^doc_/),
      chunk_id: expect.stringMatching(/^chk_/),
      position: expect.any(Number),
    });
    // Agents' tools use the same port as workflows.
    expect(builder.deps.workflowCapabilities?.knowledge).toBe(builder.deps.agentTools.knowledge);
    const forAgents = await builder.deps.agentTools.knowledge?.search({
      workspaceId,
      knowledgeBaseIds: [base],
      query: "invoices in rupiah",
      topK: 2,
    });
    expect(forAgents?.[0]).toMatchObject({
      knowledgeBaseId: base,
      documentName: "billing.md",
      chunkId: forWorkflows[0]?.chunk_id,
      position: forWorkflows[0]?.position,
    });
    const otherWorkspace = await builder.deps.agentTools.knowledge?.search({
      workspaceId: "wsp_someone_else",
      knowledgeBaseIds: [base],
      query: "invoices",
      topK: 2,
    });
    expect(otherWorkspace).toEqual([]);
  });
});

describe("tenancy and deletion", () => {
  it("another user's base and documents are not found, and cannot be written to", async () => {
    const base = await createBase(builder, alice, { name: "Private" });
    const document = await uploadOk(builder, alice, {
      knowledgeBaseId: base,
      name: "secret.txt",
      bytes: "the vault code",
    });
    await waitForDocument(builder, alice, document.id);
    for (const path of [
      `/api/knowledge-bases/${base}`,
      `/api/knowledge-bases/${base}/documents`,
      `/api/rag/documents/${document.id}`,
      `/api/rag/documents/${document.id}/chunks`,
      `/api/rag/documents/${document.id}/events`,
    ]) {
      expect((await builder.request(path, { cookie: bob })).status, path).toBe(404);
    }
    expect((await search(builder, bob, base, { query: "vault", mode: "fulltext" })).status).toBe(404);
    expect(
      (await upload(builder, bob, { knowledgeBaseId: base, name: "x.txt", bytes: "intruder" })).status,
    ).toBe(404);
    expect(
      (await builder.request(`/api/rag/documents/${document.id}`, { method: "DELETE", cookie: bob })).status,
    ).toBe(404);
    expect(
      (await builder.request(`/api/knowledge-bases/${base}`, { method: "DELETE", cookie: bob })).status,
    ).toBe(404);
    expect((await builder.request(`/api/rag/documents/${document.id}`, { cookie: alice })).status).toBe(200);
  });

  it("deleting a document removes its chunks and file; deleting a base removes its documents", async () => {
    const base = await createBase(builder, alice, { name: "Disposable" });
    const kept = await uploadOk(builder, alice, {
      knowledgeBaseId: base,
      name: "kept.txt",
      bytes: "the flamingo stays",
    });
    const dropped = await uploadOk(builder, alice, {
      knowledgeBaseId: base,
      name: "dropped.txt",
      bytes: "the flamingo leaves",
    });
    await waitForDocument(builder, alice, kept.id);
    await waitForDocument(builder, alice, dropped.id);
    const filesBefore = storedFiles();
    expect(filesBefore).toContain(dropped.id);

    expect(
      (await builder.request(`/api/rag/documents/${dropped.id}`, { method: "DELETE", cookie: alice })).status,
    ).toBe(204);
    expect((await builder.request(`/api/rag/documents/${dropped.id}`, { cookie: alice })).status).toBe(404);
    expect(storedFiles()).not.toContain(dropped.id);
    const hits = await search(builder, alice, base, { query: "flamingo", mode: "fulltext" });
    expect(hits.data.map((hit) => hit.document_name)).toEqual(["kept.txt"]);

    expect(
      (await builder.request(`/api/knowledge-bases/${base}`, { method: "DELETE", cookie: alice })).status,
    ).toBe(204);
    expect((await builder.request(`/api/rag/documents/${kept.id}`, { cookie: alice })).status).toBe(404);
    expect(storedFiles()).not.toContain(kept.id);
  });
});

describe("progress stream and documentation", () => {
  it("streams the document until it is ready", async () => {
    const base = await createBase(builder, alice, { name: "Stream" });
    const document = await uploadOk(builder, alice, {
      knowledgeBaseId: base,
      name: "s.txt",
      bytes: "streamed along",
    });
    const response = await builder.request(`/api/rag/documents/${document.id}/events`, { cookie: alice });
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    const text = await response.text();
    const events = text
      .split("\n\n")
      .filter((frame) => frame.startsWith("event: document"))
      .map((frame) => JSON.parse(frame.split("data: ")[1] as string) as DocumentJson);
    expect(events.at(-1)).toMatchObject({ id: document.id, status: "ready", progress: 100 });
    const progress = events.map((event) => event.progress);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
  });

  it("documents every knowledge route, the multipart upload included", async () => {
    const spec = (await (await builder.request("/api/openapi.json")).json()) as {
      paths: Record<string, Record<string, { requestBody?: { content: Record<string, unknown> } }>>;
    };
    for (const [path, method] of [
      ["/api/knowledge-bases", "post"],
      ["/api/knowledge-bases", "get"],
      ["/api/knowledge-bases/{id}", "get"],
      ["/api/knowledge-bases/{id}", "delete"],
      ["/api/knowledge-bases/{id}/documents", "get"],
      ["/api/knowledge-bases/{id}/search", "post"],
      ["/api/rag/upload", "post"],
      ["/api/rag/documents/{id}", "get"],
      ["/api/rag/documents/{id}", "delete"],
      ["/api/rag/documents/{id}/chunks", "get"],
      ["/api/rag/documents/{id}/events", "get"],
    ] as const) {
      expect(spec.paths[path]?.[method], `${method} ${path}`).toBeDefined();
    }
    expect(Object.keys(spec.paths["/api/rag/upload"]?.post?.requestBody?.content ?? {})).toEqual([
      "multipart/form-data",
    ]);
  });
});
