import type { IncomingMessage } from "node:http";
import { S3Error } from "./s3-error.ts";

/** What an operation answers; `file` is streamed from disk, so large objects never sit in memory. */
export interface Reply {
  status: number;
  headers: Record<string, string>;
  body?: string;
  file?: { path: string; start: number; end: number };
}

/** The part of a request the checks read; a plain object in unit tests. */
export type RequestHead = Pick<IncomingMessage, "method" | "headers">;

/** A header's value, repeated headers joined by commas as HTTP allows. */
export function header(req: RequestHead, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(",") : value;
}

export function parseQuery(raw: string): Map<string, string> {
  const query = new Map<string, string>();
  for (const [name, value] of queryPairs(raw)) query.set(name, value);
  return query;
}

/** Decoded name/value pairs in the order sent; a name without `=` has the value "". */
export function queryPairs(raw: string): [string, string][] {
  if (raw === "") return [];
  return raw.split("&").map((pair) => {
    const equals = pair.indexOf("=");
    const name = equals === -1 ? pair : pair.slice(0, equals);
    const value = equals === -1 ? "" : pair.slice(equals + 1);
    return [decodeURIComponent(name), decodeURIComponent(value)];
  });
}

/** One `bytes=` range as S3 honours it; undefined means the whole object (S3 ignores ranges it cannot parse). */
export function parseRange(
  value: string | undefined,
  size: number,
): { start: number; end: number } | "unsatisfiable" | undefined {
  const match = /^bytes=(\d*)-(\d*)$/.exec(value?.trim() ?? "");
  if (!match) return undefined;
  const [, first = "", last = ""] = match;
  if (first === "" && last === "") return undefined;
  if (first === "") {
    const suffix = Number(last);
    if (suffix === 0) return "unsatisfiable";
    return size === 0 ? "unsatisfiable" : { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(first);
  const end = last === "" ? size - 1 : Math.min(Number(last), size - 1);
  if (last !== "" && Number(last) < start) return undefined;
  if (start >= size) return "unsatisfiable";
  return { start, end };
}

/** Reads request bodies, counting every byte off the wire (framing included) for `FakeS3.receivedBytes`. */
export class RequestBodies {
  receivedBytes = 0;

  /** The request body, counted; read to its end even after a failure, so the answer is not a reset. */
  async *read(req: IncomingMessage): AsyncGenerator<Buffer> {
    for await (const chunk of req as AsyncIterable<Buffer>) {
      this.receivedBytes += chunk.length;
      yield chunk;
    }
  }

  async drain(req: IncomingMessage): Promise<void> {
    for await (const _ of this.read(req)) {
      // Discarded: S3 reads and ignores what these requests carry.
    }
  }

  async readText(req: IncomingMessage, limit: number): Promise<string> {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of this.read(req)) {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
    }
    if (size > limit) throw new S3Error(400, "MaxMessageLengthExceeded", "Your request was too big.");
    return Buffer.concat(chunks).toString("utf8");
  }
}
