import { newId } from "@app/core";
import { queryRows } from "@app/db";
import { Document, HeadingLevel, Packer, Paragraph, TextRun } from "docx";
import { type SQL, sql } from "drizzle-orm";
import { PDFDocument, StandardFonts } from "pdf-lib";
import { expect } from "vitest";
import { indexDocumentTerms } from "../src/knowledge/lexical-index.ts";
import { knowledgeDocuments } from "../src/knowledge/schema.ts";
import { vectorLiteral } from "../src/knowledge/vector-literal.ts";
import type { TestBuilder } from "./harness.ts";

export type DocumentJson = {
  id: string;
  knowledge_base_id: string;
  name: string;
  format: string;
  status: string;
  progress: number;
  error: string | null;
  chunk_count: number;
  page_count: number | null;
  attempts: number;
  size_bytes: number;
  checksum: string;
};

export type SearchHit = {
  chunk_id: string;
  document_id: string;
  document_name: string;
  position: number;
  page: number | null;
  heading_path: string[];
  text: string;
  score: number;
};

/** Creates a knowledge base and answers its id. */
export async function createBase(
  builder: TestBuilder,
  cookie: string,
  body: Record<string, unknown> = { name: "Docs" },
): Promise<string> {
  const response = await builder.request("/api/knowledge-bases", { method: "POST", cookie, json: body });
  expect(response.status).toBe(201);
  return ((await response.json()) as { id: string }).id;
}

/** POSTs a multipart upload the way a browser form does. */
export function upload(
  builder: TestBuilder,
  cookie: string,
  fields: {
    knowledgeBaseId: string;
    name: string;
    bytes: Uint8Array | string;
    type?: string;
    extra?: Record<string, string>;
  },
): Promise<Response> {
  const form = new FormData();
  form.set("knowledge_base_id", fields.knowledgeBaseId);
  for (const [key, value] of Object.entries(fields.extra ?? {})) form.set(key, value);
  const bytes = typeof fields.bytes === "string" ? new TextEncoder().encode(fields.bytes) : fields.bytes;
  form.set(
    "file",
    new Blob([new Uint8Array(bytes)], { type: fields.type ?? "application/octet-stream" }),
    fields.name,
  );
  return builder.request("/api/rag/upload", { method: "POST", cookie, body: form });
}

/** Uploads and expects 202, answering the queued document. */
export async function uploadOk(
  builder: TestBuilder,
  cookie: string,
  fields: Parameters<typeof upload>[2],
): Promise<DocumentJson> {
  const response = await upload(builder, cookie, fields);
  if (response.status !== 202)
    throw new Error(`upload answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as DocumentJson;
}

/**
 * `count` documents of `chunks` chunks each, written straight into the tables (ingesting them
 * would take minutes); answers their ids. Chunk `n` of document `d` is `${documentId}-${n}`, its
 * text the SQL `chunkText(d)` (which may use `n`), its embedding `vector` if given. A `ready`
 * document is indexed for BM25; an `embedding` one is left as ingestion leaves it between two
 * batches (vectors in the HNSW index, no postings).
 */
export async function insertDocuments(
  builder: TestBuilder,
  base: string,
  options: {
    count: number;
    chunks: number;
    chunkText: (d: number) => SQL;
    status?: "ready" | "embedding";
    vector?: number[];
  },
): Promise<string[]> {
  const { db } = builder.deps;
  const status = options.status ?? "ready";
  const [owner] = await queryRows<{ workspace_id: string }>(
    db,
    sql`select workspace_id from knowledge_bases where id = ${base}`,
  );
  const workspaceId = owner?.workspace_id as string;
  const vector = options.vector;
  // Named only with a vector: without pgvector the columns do not exist.
  const vectorColumns = vector ? sql`, dimensions, embedding` : sql.empty();
  const vectorValues = vector ? sql`, ${vector.length}::int, ${vectorLiteral(vector)}::vector` : sql.empty();
  const ids: string[] = [];
  for (let d = 0; d < options.count; d++) {
    const documentId = newId("doc");
    const now = new Date();
    await db.insert(knowledgeDocuments).values({
      id: documentId,
      workspaceId,
      knowledgeBaseId: base,
      name: `bulk-${d}.txt`,
      format: "text",
      contentType: "text/plain",
      sizeBytes: 0,
      checksum: documentId,
      storageKey: `test/${documentId}`,
      status,
      progress: status === "ready" ? 100 : 50,
      chunkSize: 500,
      chunkOverlap: 50,
      chunkCount: options.chunks,
      nextAttemptAt: now,
      createdAt: now,
      updatedAt: now,
    });
    await db.execute(sql`
      insert into knowledge_chunks (id, workspace_id, knowledge_base_id, document_id, position, text,
        char_start, char_end, heading_path, token_count${vectorColumns})
      select ${documentId} || '-' || n, ${workspaceId}, ${base}, ${documentId}, n, ${options.chunkText(d)},
        0, 60, '[]'::jsonb, 15${vectorValues}
      from generate_series(0, ${options.chunks - 1}) n`);
    if (status === "ready") await indexDocumentTerms(db, documentId);
    ids.push(documentId);
  }
  return ids;
}

/** Polls the document until it is `ready` or `failed` (or `until` says so), stepping `onPoll` each time. */
export async function waitForDocument(
  builder: TestBuilder,
  cookie: string,
  id: string,
  options: { until?: (document: DocumentJson) => boolean; onPoll?: () => void; timeoutMs?: number } = {},
): Promise<DocumentJson> {
  const until = options.until ?? ((document) => document.status === "ready" || document.status === "failed");
  const deadline = Date.now() + (options.timeoutMs ?? 20_000);
  for (;;) {
    const response = await builder.request(`/api/rag/documents/${id}`, { cookie });
    const document = (await response.json()) as DocumentJson;
    if (until(document)) return document;
    if (Date.now() > deadline) throw new Error(`document ${id} stuck at ${JSON.stringify(document)}`);
    options.onPoll?.();
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export async function search(
  builder: TestBuilder,
  cookie: string,
  knowledgeBaseId: string,
  body: Record<string, unknown>,
): Promise<{ status: number; mode?: string; data: SearchHit[]; error?: { code: string; message: string } }> {
  const response = await builder.request(`/api/knowledge-bases/${knowledgeBaseId}/search`, {
    method: "POST",
    cookie,
    json: body,
  });
  const json = (await response.json()) as {
    mode?: string;
    data?: SearchHit[];
    error?: { code: string; message: string };
  };
  return { status: response.status, data: json.data ?? [], ...json };
}

/** A real two-page PDF made by pdf-lib. */
export async function makePdf(pages: string[][]): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  for (const lines of pages) {
    const page = pdf.addPage();
    lines.forEach((line, i) => {
      page.drawText(line, { x: 50, y: 750 - i * 18, font, size: 12 });
    });
  }
  return pdf.save();
}

/** A real DOCX made by the docx library: a heading and paragraphs under it. */
export async function makeDocx(heading: string, paragraphs: string[]): Promise<Uint8Array> {
  const document = new Document({
    sections: [
      {
        children: [
          new Paragraph({ text: heading, heading: HeadingLevel.HEADING_1 }),
          ...paragraphs.map((text) => new Paragraph({ children: [new TextRun(text)] })),
        ],
      },
    ],
  });
  return new Uint8Array(await Packer.toBuffer(document));
}
