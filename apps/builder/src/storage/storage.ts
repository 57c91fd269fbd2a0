import type { Readable } from "node:stream";

/** Bytes of a stored object, inclusive at both ends like an HTTP Range. */
export interface ByteRange {
  start: number;
  end?: number | undefined;
}

/**
 * Where uploaded and generated files live. Keys are `/`-separated relative paths chosen by the
 * caller (never user input verbatim); a local disk is the default, an S3-compatible store can
 * implement the same three calls.
 */
export interface Storage {
  /** Writes the stream under `key`, replacing any object there; resolves with the byte count. */
  put(key: string, body: Readable): Promise<{ sizeBytes: number }>;
  /** Reads the object (or a range of it); rejects with `StorageNotFoundError` when absent. */
  get(key: string, range?: ByteRange): Promise<Readable>;
  /** Removes the object; a missing key is not an error, so deletes can be retried. */
  delete(key: string): Promise<void>;
}

/** The object asked for does not exist. */
export class StorageNotFoundError extends Error {
  override name = "StorageNotFoundError";
}
