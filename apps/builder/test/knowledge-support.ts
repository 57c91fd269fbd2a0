import { Document, HeadingLevel, Packer, Paragraph, TextRun } from "docx";
import { PDFDocument, StandardFonts } from "pdf-lib";
import { expect } from "vitest";
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
