// The fake's public shapes, re-exported by ../fake-s3.ts (and from there by the package).

export interface FakeS3Options {
  /** The one key pair the fake accepts; generated when unset. */
  accessKeyId?: string;
  secretAccessKey?: string;
  /** The region requests must be signed for; default `us-east-1`. */
  region?: string;
  /** Buckets that exist from the start; default `["fake-bucket"]`. */
  buckets?: string[];
  /** The fake's clock, for `RequestTimeTooSkewed` (signatures older than 15 minutes are refused). */
  now?: () => Date;
}

/** An object as the fake stores it: the bytes on disk, their facts here. */
export interface FakeS3Object {
  key: string;
  size: number;
  /** Hex SHA-256 of the stored bytes, computed by the fake as they arrived. */
  sha256: string;
  etag: string;
  contentType: string;
  /** 0 for PutObject, the part count for a completed multipart upload. */
  partCount: number;
}

/** One request as the fake understood it. */
export interface FakeS3Request {
  method: string;
  /** The S3 operation (`PutObject`, `UploadPart`, …), or `Unknown`. */
  operation: string;
  bucket: string;
  key: string;
  status: number;
  /** The S3 error code answered, if any. */
  code?: string;
  /** The `x-amz-content-sha256` the client sent (how it signed the payload). */
  contentSha256?: string;
}

export interface FakeS3 {
  /** The endpoint to give the SDK (path-style addressing: `forcePathStyle: true`). */
  url: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  requests: FakeS3Request[];
  /** Request body bytes read off the wire so far, framing included. */
  readonly receivedBytes: number;
  object(bucket: string, key: string): FakeS3Object | undefined;
  keys(bucket: string): string[];
  /** Multipart uploads started and neither completed nor aborted. */
  pendingUploads(bucket: string): number;
  close(): Promise<void>;
}
