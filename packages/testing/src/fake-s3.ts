import { randomBytes } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { handleRequest } from "./fake-s3/handle-request.ts";
import { RequestBodies } from "./fake-s3/http.ts";
import type { S3Server } from "./fake-s3/operation.ts";
import { FakeS3Store, type StoredObject } from "./fake-s3/store.ts";
import type { FakeS3, FakeS3Object, FakeS3Options, FakeS3Request } from "./fake-s3/types.ts";

export type { FakeS3, FakeS3Object, FakeS3Options, FakeS3Request } from "./fake-s3/types.ts";

/**
 * An S3-compatible server on 127.0.0.1 for tests, speaking the REST protocol the AWS SDK v3 uses
 * with path-style addressing: PutObject (plain, `aws-chunked` with signed chunks, or unsigned with
 * a trailing checksum), multipart uploads, GetObject with `Range`, HeadObject, HeadBucket,
 * DeleteObject, and S3's XML errors. Every request's SigV4 signature is verified in full (chunk
 * and trailer signatures too), as are payload hashes and `x-amz-checksum-*` values. Object bytes
 * are kept in a temporary directory, never in memory. The pieces live in `./fake-s3/`.
 *
 * @example const s3 = await startFakeS3({ buckets: ["files"] }); new S3Client({ endpoint: s3.url, region: s3.region, forcePathStyle: true, credentials: s3 });
 */
export async function startFakeS3(options: FakeS3Options = {}): Promise<FakeS3> {
  const accessKeyId = options.accessKeyId ?? `AKFAKE${randomBytes(7).toString("hex").toUpperCase()}`;
  const secretAccessKey = options.secretAccessKey ?? randomBytes(30).toString("base64");
  const region = options.region ?? "us-east-1";
  const store = new FakeS3Store(options.buckets ?? ["fake-bucket"]);
  const bodies = new RequestBodies();
  const requests: FakeS3Request[] = [];
  const credentials = { accessKeyId, secretAccessKey, region };

  const httpServer = createServer((req, res) => {
    handleRequest(served, credentials, requests, req, res).catch((error: unknown) =>
      res.destroy(error as Error),
    );
  });
  await new Promise<void>((resolve) => httpServer.listen(0, "127.0.0.1", resolve));
  // Built once the port is known; no request can arrive before `listen` resolves.
  const served: S3Server = {
    store,
    bodies,
    now: options.now ?? (() => new Date()),
    region,
    url: `http://127.0.0.1:${(httpServer.address() as AddressInfo).port}`,
  };

  return {
    url: served.url,
    region,
    accessKeyId,
    secretAccessKey,
    requests,
    get receivedBytes() {
      return bodies.receivedBytes;
    },
    object(bucket, key) {
      const stored = store.buckets.get(bucket)?.get(key);
      return stored ? publicObject(stored) : undefined;
    },
    keys(bucket) {
      return [...(store.buckets.get(bucket)?.keys() ?? [])].sort();
    },
    pendingUploads(bucket) {
      return [...store.uploads.values()].filter((upload) => upload.bucket === bucket).length;
    },
    close: () =>
      new Promise<void>((resolve) => {
        httpServer.close(() => {
          store.removeAll();
          resolve();
        });
        httpServer.closeAllConnections();
      }),
  };
}

function publicObject(stored: StoredObject): FakeS3Object {
  return {
    key: stored.key,
    size: stored.size,
    sha256: stored.sha256,
    etag: stored.etag,
    contentType: stored.contentType,
    partCount: stored.partCount,
  };
}
