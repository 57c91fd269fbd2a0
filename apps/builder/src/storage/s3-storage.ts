import { pipeline, Readable, Transform } from "node:stream";
import { commonJsExports } from "@app/core";
import { assertStorageKey, type ByteRange, type Storage, StorageNotFoundError } from "./storage.ts";

/** Where and how to reach an S3-compatible bucket (AWS S3, MinIO, Cloudflare R2, …). */
export interface S3Settings {
  bucket: string;
  region: string;
  /** For stores other than AWS S3 (`https://<account>.r2.cloudflarestorage.com`, `http://minio:9000`). */
  endpoint: string | undefined;
  /** Path-style URLs (`endpoint/bucket/key`), which MinIO and most self-hosted stores need. */
  forcePathStyle: boolean;
  /** Prepended to every key with a `/`; empty for none. */
  prefix: string;
  /** Explicit keys; absent, the AWS SDK's default chain (AWS_* variables, profiles, instance roles). */
  credentials: { accessKeyId: string; secretAccessKey: string } | undefined;
}

/**
 * Memory bounds of one upload: the body is cut into parts of `partSizeBytes` and at most
 * `queueSize` of them are in flight while the next one fills, so an upload holds about
 * (queueSize + 1) × partSizeBytes whatever the file's size.
 */
export interface S3UploadLimits {
  partSizeBytes: number;
  queueSize: number;
}

/** 5 MiB is S3's smallest part; two in flight keep one upload near 15 MiB of memory. */
export const DEFAULT_S3_UPLOAD_LIMITS: S3UploadLimits = { partSizeBytes: 5 * 1024 * 1024, queueSize: 2 };

async function loadAwsSdk() {
  const [s3, storage] = await Promise.all([
    import("@aws-sdk/client-s3").then(commonJsExports),
    import("@aws-sdk/lib-storage").then(commonJsExports),
  ]);
  return {
    S3Client: s3.S3Client,
    S3ServiceException: s3.S3ServiceException,
    GetObjectCommand: s3.GetObjectCommand,
    DeleteObjectCommand: s3.DeleteObjectCommand,
    Upload: storage.Upload,
  };
}
type AwsSdk = Awaited<ReturnType<typeof loadAwsSdk>>;

/**
 * Files in an S3-compatible bucket through the official AWS SDK. Uploads stream: bodies smaller
 * than one part go up in a single PutObject, larger ones as a multipart upload that is aborted
 * if the body or the store fails, so a failed write leaves no object and no orphaned parts.
 *
 * @example const storage = s3Storage({ bucket: "files", region: "us-east-1", endpoint: undefined, forcePathStyle: false, prefix: "builder", credentials: undefined });
 */
export function s3Storage(settings: S3Settings, limits: S3UploadLimits = DEFAULT_S3_UPLOAD_LIMITS): Storage {
  // The AWS SDK is most of a megabyte of JavaScript: loaded by the first use of the bucket (the
  // start-up check when S3_BUCKET is set), so a builder on the local disk never loads it.
  let opened: Promise<{ sdk: AwsSdk; client: InstanceType<AwsSdk["S3Client"]> }> | undefined;
  const open = () => {
    opened ??= loadAwsSdk().then((sdk) => ({
      sdk,
      client: new sdk.S3Client({
        region: settings.region,
        forcePathStyle: settings.forcePathStyle,
        ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
        ...(settings.credentials ? { credentials: settings.credentials } : {}),
        // A store that stops answering must not hold an upload forever. The idle limit is generous
        // because a download paused by a slow client (a video player) idles its socket too.
        requestHandler: { connectionTimeout: 10_000, socketTimeout: 120_000 },
      }),
    }));
    return opened;
  };
  const prefix = settings.prefix.replace(/^\/+|\/+$/g, "");
  const { bucket } = settings;
  const objectKey = (key: string) => {
    assertStorageKey(key);
    return prefix ? `${prefix}/${key}` : key;
  };

  return {
    async put(key, body) {
      const Key = objectKey(key);
      const { sdk, client } = await open();
      let sizeBytes = 0;
      const counted = pipeline(
        body,
        new Transform({
          transform(chunk: Buffer, _encoding, done) {
            sizeBytes += chunk.length;
            done(null, chunk);
          },
        }),
        () => {
          // Errors reach the upload through the stream it reads; nothing to do here.
        },
      );
      const upload = new sdk.Upload({
        client,
        params: { Bucket: bucket, Key, Body: counted },
        partSize: limits.partSizeBytes,
        queueSize: limits.queueSize,
        leavePartsOnError: false,
      });
      try {
        await upload.done();
      } catch (error) {
        // The body's producer (an upload form, a download) must not wait on a store that gave up.
        counted.destroy();
        throw error;
      }
      return { sizeBytes };
    },
    async get(key, range?: ByteRange) {
      const Key = objectKey(key);
      const { sdk, client } = await open();
      try {
        const answer = await client.send(
          new sdk.GetObjectCommand({
            Bucket: bucket,
            Key,
            ...(range ? { Range: `bytes=${range.start}-${range.end ?? ""}` } : {}),
          }),
        );
        // In Node the body is the response stream (wrapped in a checksum check on whole reads).
        if (!(answer.Body instanceof Readable)) throw new Error(`S3 answered ${key} without a body stream`);
        return answer.Body;
      } catch (error) {
        if (error instanceof sdk.S3ServiceException && error.name === "NoSuchKey")
          throw new StorageNotFoundError(`no stored object ${key}`);
        throw error;
      }
    },
    async delete(key) {
      const { sdk, client } = await open();
      try {
        await client.send(new sdk.DeleteObjectCommand({ Bucket: bucket, Key: objectKey(key) }));
      } catch (error) {
        // S3 answers 204 for a missing key; some compatible stores answer 404.
        if (
          error instanceof sdk.S3ServiceException &&
          (error.name === "NoSuchKey" || error.name === "NotFound")
        )
          return;
        throw error;
      }
    },
    async check() {
      const { sdk, client } = await open();
      // Reading a key that does not exist needs only s3:GetObject and tells apart what start-up must
      // catch: a missing bucket, an unknown key id, a wrong secret, an unreachable endpoint.
      try {
        const answer = await client.send(
          new sdk.GetObjectCommand({
            Bucket: bucket,
            Key: objectKey("startup-check/absent"),
            Range: "bytes=0-0",
          }),
        );
        (answer.Body as Readable | undefined)?.destroy();
      } catch (error) {
        // Without s3:ListBucket, S3 answers AccessDenied instead of NoSuchKey: both prove the rest.
        if (
          error instanceof sdk.S3ServiceException &&
          (error.name === "NoSuchKey" || error.name === "AccessDenied")
        )
          return;
        throw error;
      }
    },
  };
}
