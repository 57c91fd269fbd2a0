import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Checksum } from "./checksums.ts";
import type { FakeS3Object } from "./types.ts";

export interface StoredObject extends FakeS3Object {
  file: string;
  lastModified: Date;
  /** `x-amz-checksum-<algorithm>` as S3 would answer it with `x-amz-checksum-mode: ENABLED`. */
  checksum: Checksum | undefined;
}

export interface StoredPart {
  file: string;
  size: number;
  etag: string;
  /** Kept raw: the multipart ETag is the MD5 of the parts' MD5s. */
  md5: Buffer;
  checksum: Checksum | undefined;
}

export interface Upload {
  bucket: string;
  key: string;
  contentType: string;
  checksumAlgorithm: string | undefined;
  parts: Map<number, StoredPart>;
}

/**
 * What the fake holds: objects per bucket and open multipart uploads in memory, their bytes as
 * files in one temporary directory, so large test objects never sit in memory.
 */
export class FakeS3Store {
  readonly buckets: Map<string, Map<string, StoredObject>>;
  /** By upload id. */
  readonly uploads = new Map<string, Upload>();
  readonly #root = mkdtempSync(join(tmpdir(), "fake-s3-"));
  #fileCounter = 0;

  constructor(buckets: string[]) {
    this.buckets = new Map(buckets.map((name) => [name, new Map()]));
  }

  /** A fresh path for one object's or part's bytes. */
  newFile(): string {
    return join(this.#root, `${++this.#fileCounter}-${randomBytes(6).toString("hex")}`);
  }

  /** Deletes every file the fake wrote. */
  removeAll(): void {
    rmSync(this.#root, { recursive: true, force: true });
  }
}
