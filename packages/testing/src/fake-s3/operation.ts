import type { IncomingMessage } from "node:http";
import type { Reply, RequestBodies } from "./http.ts";
import type { Signing } from "./sigv4.ts";
import type { FakeS3Store, StoredObject } from "./store.ts";

/** One authenticated request to a bucket that exists, as an operation sees it. */
export interface S3Call {
  req: IncomingMessage;
  signing: Signing;
  bucket: string;
  /** Decoded; "" for a request to the bucket itself. */
  key: string;
  query: Map<string, string>;
  /** The bucket's objects. */
  objects: Map<string, StoredObject>;
}

/** What every operation of one fake shares. */
export interface S3Server {
  store: FakeS3Store;
  bodies: RequestBodies;
  now: () => Date;
  region: string;
  /** The fake's own endpoint, for `<Location>` answers. */
  url: string;
}

/** An S3 operation (`PutObject`, `UploadPart`, …): answers a reply or throws an `S3Error`. */
export type Operation = (call: S3Call, server: S3Server) => Promise<Reply>;
