import type { Readable } from "node:stream";

/** Bytes of a stored object, inclusive at both ends like an HTTP Range. */
export interface ByteRange {
  start: number;
  end?: number | undefined;
}

/**
 * Where uploaded and generated files live. Keys are `/`-separated relative paths chosen by the
 * caller (never user input verbatim); a local disk is the default, an S3-compatible bucket the
 * other implementation (see `open-storage.ts`).
 */
export interface Storage {
  /** Writes the stream under `key`, replacing any object there; resolves with the byte count. */
  put(key: string, body: Readable): Promise<{ sizeBytes: number }>;
  /** Reads the object (or a range of it); rejects with `StorageNotFoundError` when absent. */
  get(key: string, range?: ByteRange): Promise<Readable>;
  /** Removes the object; a missing key is not an error, so deletes can be retried. */
  delete(key: string): Promise<void>;
  /** Proves at start-up that the store is usable (the directory writable, the bucket reachable with the credentials). */
  check(): Promise<void>;
}

const KEY_PATTERN = /^[A-Za-z0-9_-]+(\/[A-Za-z0-9_.-]+)*$/;

/**
 * Throws unless `key` is a storage key every implementation maps safely: `/`-separated segments of
 * letters, digits, `_`, `-` and `.`, none of them `.` or `..`.
 *
 * @example assertStorageKey("knowledge/ws_1/doc_1");
 */
export function assertStorageKey(key: string): void {
  if (!KEY_PATTERN.test(key) || key.split("/").some((part) => part === "." || part === ".."))
    throw new Error(`invalid storage key ${JSON.stringify(key)}`);
}

/** The object asked for does not exist. */
export class StorageNotFoundError extends Error {
  override name = "StorageNotFoundError";
}
