import { createHash } from "node:crypto";
import { Readable, Transform, type TransformCallback } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import { type Clock, newId } from "@app/core";
import { isUniqueViolation } from "@app/db";
import { CommonErrors, validationError } from "@app/http";
import Busboy from "busboy";
import { and, eq } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import type { Storage } from "../storage/storage.ts";
import { uploadFieldsSchema } from "./contract.ts";
import { KnowledgeErrors } from "./errors.ts";
import { findKnowledgeBase } from "./find-knowledge-base.ts";
import { detectFormat, FORMAT_CONTENT_TYPES, SNIFF_BYTES } from "./formats.ts";
import type { DocumentRow } from "./schema.ts";
import { knowledgeDocuments } from "./schema.ts";

/** Room for the multipart envelope and text fields on top of the file-size cap. */
const MULTIPART_ALLOWANCE_BYTES = 64 * 1024;
const MAX_NAME_LENGTH = 255;

export interface UploadRequest {
  body: ReadableStream<Uint8Array> | null;
  contentType: string | undefined;
  contentLength: number | undefined;
}

/**
 * Streams a multipart upload into storage while hashing it, checks it, and queues it for
 * ingestion. The file is never held in memory whole: busboy parses the stream, the file part
 * flows through a SHA-256 and a byte count into storage, and only its first bytes are kept to
 * sniff the type. Any refusal (413 past the cap, 415, 409 duplicate, 422, 404) deletes what was
 * written, so nothing half-stored remains.
 *
 * @example const document = await uploadDocument(deps, workspaceId, { body: req.body, contentType, contentLength });
 */
export async function uploadDocument(
  deps: { db: BuilderDb; clock: Clock; storage: Storage; maxUploadBytes: number },
  workspaceId: string,
  request: UploadRequest,
): Promise<DocumentRow> {
  const { db, clock, storage, maxUploadBytes } = deps;
  if (!request.contentType?.toLowerCase().startsWith("multipart/form-data"))
    throw KnowledgeErrors.NOT_MULTIPART();
  const tooLarge = () =>
    KnowledgeErrors.FILE_TOO_LARGE({
      message: `The file is larger than the upload limit of ${formatMegabytes(maxUploadBytes)}.`,
      // The rest of an oversized body is not read, so the connection cannot carry another request.
      headers: { Connection: "close" },
    });
  if (
    request.contentLength !== undefined &&
    request.contentLength > maxUploadBytes + MULTIPART_ALLOWANCE_BYTES
  )
    throw tooLarge();
  if (!request.body) throw fileRequired();

  const now = clock.now();
  const id = newId("doc", now.getTime());
  const storageKey = `knowledge/${workspaceId}/${id}`;
  const received = await receiveMultipart(
    request.body,
    request.contentType,
    storage,
    storageKey,
    maxUploadBytes,
  ).catch(async (error: unknown) => {
    await storage.delete(storageKey);
    if (error instanceof RequestTooLargeError) throw tooLarge();
    throw KnowledgeErrors.MALFORMED_MULTIPART({
      message: `The multipart body could not be read: ${error instanceof Error ? error.message : String(error)}`,
    });
  });

  try {
    const { file, fields } = received;
    if (!file) throw fileRequired();
    if (file.isTruncated) throw tooLarge();
    const parsed = uploadFieldsSchema.safeParse(fields);
    if (!parsed.success) throw validationError(parsed.error, "body");
    if (!(await findKnowledgeBase(db, workspaceId, parsed.data.knowledge_base_id)))
      throw KnowledgeErrors.KNOWLEDGE_BASE_NOT_FOUND({ param: "knowledge_base_id" });
    if (file.sizeBytes === 0) throw KnowledgeErrors.EMPTY_FILE({ param: "file" });
    const format = detectFormat(file.name, file.mimeType, file.head);
    if (!format)
      throw KnowledgeErrors.UNSUPPORTED_FILE_TYPE({
        message: `Unsupported file type for ${JSON.stringify(file.name)}: upload PDF, DOCX, Markdown, HTML, plain text, CSV or JSON (the content must match the extension).`,
        param: "file",
      });
    const [existing] = await db
      .select({ id: knowledgeDocuments.id })
      .from(knowledgeDocuments)
      .where(
        and(
          eq(knowledgeDocuments.knowledgeBaseId, parsed.data.knowledge_base_id),
          eq(knowledgeDocuments.checksum, file.checksum),
        ),
      )
      .limit(1);
    if (existing) throw duplicate(existing.id);
    try {
      const [row] = await db
        .insert(knowledgeDocuments)
        .values({
          id,
          workspaceId,
          knowledgeBaseId: parsed.data.knowledge_base_id,
          name: file.name,
          format,
          contentType: FORMAT_CONTENT_TYPES[format],
          sizeBytes: file.sizeBytes,
          checksum: file.checksum,
          storageKey,
          status: "queued",
          progress: 0,
          chunkSize: parsed.data.chunk_size,
          chunkOverlap: parsed.data.chunk_overlap,
          nextAttemptAt: now,
          createdAt: now,
          updatedAt: now,
        })
        .returning();
      if (!row) throw new Error("insert returned no row");
      return row;
    } catch (error) {
      // Two identical uploads racing: the unique index decides, the loser answers 409.
      if (isUniqueViolation(error)) throw duplicate(undefined);
      throw error;
    }
  } catch (error) {
    await storage.delete(storageKey);
    throw error;
  }
}

interface ReceivedFile {
  name: string;
  mimeType: string;
  sizeBytes: number;
  checksum: string;
  head: Uint8Array;
  isTruncated: boolean;
}

class RequestTooLargeError extends Error {}

async function receiveMultipart(
  body: ReadableStream<Uint8Array>,
  contentType: string,
  storage: Storage,
  storageKey: string,
  maxFileBytes: number,
): Promise<{ fields: Record<string, string>; file: ReceivedFile | undefined }> {
  const fields: Record<string, string> = {};
  let file: Promise<ReceivedFile> | undefined;
  const parser = Busboy({
    headers: { "content-type": contentType },
    // busboy stops writing the file at fileSize + 1 byte, so "over the cap" is detectable.
    limits: { files: 1, fileSize: maxFileBytes, fields: 10, fieldSize: 10_000, parts: 20 },
  });
  parser.on("field", (name, value) => {
    fields[name] = value;
  });
  parser.on("file", (name, stream, info) => {
    if (name !== "file" || file) {
      stream.resume();
      return;
    }
    const inspector = new FileInspector();
    let isTruncated = false;
    stream.on("limit", () => {
      isTruncated = true;
    });
    stream.on("error", (error) => inspector.destroy(error));
    file = storage.put(storageKey, stream.pipe(inspector)).then(({ sizeBytes }) => ({
      name: cleanFileName(info.filename),
      mimeType: info.mimeType,
      sizeBytes,
      checksum: inspector.checksum(),
      head: inspector.head(),
      isTruncated,
    }));
  });
  try {
    await pipeline(
      Readable.fromWeb(body as WebReadableStream<Uint8Array>),
      byteLimit(maxFileBytes + MULTIPART_ALLOWANCE_BYTES),
      parser,
    );
  } catch (error) {
    // Let the storage write settle (it removes its temporary file) before reporting.
    await file?.catch(() => undefined);
    throw error;
  }
  return { fields, file: file ? await file : undefined };
}

/** Hashes the bytes flowing through and keeps the first ones for type sniffing. */
class FileInspector extends Transform {
  readonly #hash = createHash("sha256");
  readonly #head: Buffer[] = [];
  #headBytes = 0;
  #digest: string | undefined;

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.#hash.update(chunk);
    if (this.#headBytes < SNIFF_BYTES) {
      const part = chunk.subarray(0, SNIFF_BYTES - this.#headBytes);
      this.#head.push(part);
      this.#headBytes += part.length;
    }
    done(null, chunk);
  }

  checksum(): string {
    this.#digest ??= this.#hash.digest("hex");
    return this.#digest;
  }

  head(): Uint8Array {
    return new Uint8Array(Buffer.concat(this.#head));
  }
}

/** Fails the request stream past `maxBytes`, so a body without Content-Length cannot run on forever. */
function byteLimit(maxBytes: number): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      seen += chunk.length;
      if (seen > maxBytes) done(new RequestTooLargeError("request body too large"));
      else done(null, chunk);
    },
  });
}

function cleanFileName(raw: string | undefined): string {
  const base = (raw ?? "").split(/[\\/]/).pop() ?? "";
  // Control characters would end up in headers and logs.
  const cleaned = base.replace(/\p{Cc}/gu, "").trim();
  return (cleaned || "upload").slice(0, MAX_NAME_LENGTH);
}

function fileRequired() {
  return CommonErrors.VALIDATION_FAILED({
    message: "Invalid body. file: is required",
    param: "file",
    details: [{ path: "file", message: "is required" }],
  });
}

function duplicate(existingId: string | undefined) {
  return KnowledgeErrors.DUPLICATE_DOCUMENT({
    ...(existingId
      ? {
          message: `This knowledge base already holds a document with the same content (${existingId}).`,
          details: [{ path: "file", message: `same SHA-256 as ${existingId}`, code: "duplicate_checksum" }],
        }
      : {}),
    param: "file",
  });
}

function formatMegabytes(bytes: number): string {
  const megabytes = bytes / (1024 * 1024);
  return `${Number.isInteger(megabytes) ? megabytes : megabytes.toFixed(2)} MB`;
}
