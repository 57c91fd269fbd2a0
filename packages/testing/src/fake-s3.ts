import { createHash, createHmac, type Hash, randomBytes, timingSafeEqual } from "node:crypto";
import { once } from "node:events";
import { createReadStream, createWriteStream, mkdtempSync, rmSync } from "node:fs";
import { rm } from "node:fs/promises";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { finished, pipeline } from "node:stream/promises";
import { crc32 } from "node:zlib";

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

/** What S3 calls the fixed hash of an empty payload, used in chunk signatures. */
const EMPTY_SHA256 = createHash("sha256").digest("hex");
const MIN_PART_BYTES = 5 * 1024 * 1024;
const MAX_PUT_BYTES = 5 * 1024 * 1024 * 1024;
const MAX_SKEW_MS = 15 * 60_000;
const XMLNS = "http://s3.amazonaws.com/doc/2006-03-01/";

interface StoredObject extends FakeS3Object {
  file: string;
  lastModified: Date;
  /** `x-amz-checksum-<algorithm>` as S3 would answer it with `x-amz-checksum-mode: ENABLED`. */
  checksum: { algorithm: string; value: string } | undefined;
}

interface StoredPart {
  file: string;
  size: number;
  etag: string;
  md5: Buffer;
  checksum: { algorithm: string; value: string } | undefined;
}

interface Upload {
  bucket: string;
  key: string;
  contentType: string;
  checksumAlgorithm: string | undefined;
  parts: Map<number, StoredPart>;
}

/** An S3 error answer: status, code and message as S3 words them. */
class S3Error extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly extra: Record<string, string> = {},
  ) {
    super(message);
  }
}

/**
 * An S3-compatible server on 127.0.0.1 for tests, speaking the REST protocol the AWS SDK v3 uses
 * with path-style addressing: PutObject (plain, `aws-chunked` with signed chunks, or unsigned with
 * a trailing checksum), multipart uploads, GetObject with `Range`, HeadObject, HeadBucket,
 * DeleteObject, and S3's XML errors. Every request's SigV4 signature is verified in full (chunk
 * and trailer signatures too), as are payload hashes and `x-amz-checksum-*` values. Object bytes
 * are kept in a temporary directory, never in memory.
 *
 * @example const s3 = await startFakeS3({ buckets: ["files"] }); new S3Client({ endpoint: s3.url, region: s3.region, forcePathStyle: true, credentials: s3 });
 */
export async function startFakeS3(options: FakeS3Options = {}): Promise<FakeS3> {
  const accessKeyId = options.accessKeyId ?? `AKFAKE${randomBytes(7).toString("hex").toUpperCase()}`;
  const secretAccessKey = options.secretAccessKey ?? randomBytes(30).toString("base64");
  const region = options.region ?? "us-east-1";
  const now = options.now ?? (() => new Date());
  const root = mkdtempSync(join(tmpdir(), "fake-s3-"));
  const buckets = new Map<string, Map<string, StoredObject>>(
    (options.buckets ?? ["fake-bucket"]).map((name) => [name, new Map()]),
  );
  const uploads = new Map<string, Upload>();
  const requests: FakeS3Request[] = [];
  let receivedBytes = 0;
  let fileCounter = 0;
  const newFile = () => join(root, `${++fileCounter}-${randomBytes(6).toString("hex")}`);

  /** The request body, counted; read to its end even after a failure, so the answer is not a reset. */
  async function* bodyOf(req: IncomingMessage): AsyncGenerator<Buffer> {
    for await (const chunk of req as AsyncIterable<Buffer>) {
      receivedBytes += chunk.length;
      yield chunk;
    }
  }

  const drain = async (req: IncomingMessage) => {
    for await (const _ of bodyOf(req)) {
      // Discarded: S3 reads and ignores what these requests carry.
    }
  };

  const readText = async (req: IncomingMessage, limit: number) => {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of bodyOf(req)) {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
    }
    if (size > limit) throw new S3Error(400, "MaxMessageLengthExceeded", "Your request was too big.");
    return Buffer.concat(chunks).toString("utf8");
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const requestId = randomBytes(8).toString("hex").toUpperCase();
    const [rawPath = "/", rawQuery = ""] = (req.url ?? "/").split("?", 2) as [string, string?];
    const query = parseQuery(rawQuery);
    const [bucket = "", ...keyParts] = rawPath.slice(1).split("/");
    const key = decodeURIComponent(keyParts.join("/"));
    const entry: FakeS3Request = {
      method: req.method ?? "",
      operation: operationOf(req.method ?? "", key, query),
      bucket: decodeURIComponent(bucket),
      key,
      status: 0,
      contentSha256: header(req, "x-amz-content-sha256"),
    };
    requests.push(entry);
    try {
      const auth = authenticate(req, rawPath, rawQuery, { accessKeyId, secretAccessKey, region, now: now() });
      const objects = buckets.get(entry.bucket);
      if (!objects)
        throw new S3Error(404, "NoSuchBucket", "The specified bucket does not exist", {
          BucketName: entry.bucket,
        });
      const reply = await route(entry, query, objects, auth);
      entry.status = reply.status;
      res.writeHead(reply.status, { "x-amz-request-id": requestId, ...reply.headers });
      if (reply.file && req.method !== "HEAD") {
        await pipeline(
          createReadStream(reply.file.path, { start: reply.file.start, end: reply.file.end }),
          res,
        );
      } else {
        res.end(req.method === "HEAD" ? undefined : reply.body);
      }
    } catch (error) {
      if (!(error instanceof S3Error)) {
        if (!res.headersSent) {
          entry.status = 500;
          entry.code = "InternalError";
          res.writeHead(500, { "content-type": "application/xml" });
          res.end(errorXml("InternalError", (error as Error).message, requestId, {}));
        } else res.destroy(error as Error);
        return;
      }
      entry.status = error.status;
      entry.code = error.code;
      // Answering before the body is read would reset the connection under the client's feet.
      if (!req.readableEnded) {
        req.resume();
        await finished(req).catch(() => undefined);
      }
      res.writeHead(error.status, {
        "x-amz-request-id": requestId,
        ...(req.method === "HEAD" ? {} : { "content-type": "application/xml" }),
        ...(error.extra.ContentRange ? { "content-range": error.extra.ContentRange } : {}),
      });
      res.end(
        req.method === "HEAD" ? undefined : errorXml(error.code, error.message, requestId, error.extra),
      );
    }
  };

  type Reply = {
    status: number;
    headers: Record<string, string>;
    body?: string;
    file?: { path: string; start: number; end: number };
  };

  const route = async (
    entry: FakeS3Request,
    query: Map<string, string>,
    objects: Map<string, StoredObject>,
    auth: Auth,
  ): Promise<Reply> => {
    const { req } = auth;
    switch (entry.operation) {
      case "HeadBucket":
        return { status: 200, headers: { "x-amz-bucket-region": region } };
      case "PutObject": {
        const received = await receiveBody(auth);
        const previous = objects.get(entry.key);
        const stored: StoredObject = {
          key: entry.key,
          file: received.file,
          size: received.size,
          sha256: received.sha256,
          etag: `"${received.md5.toString("hex")}"`,
          contentType: header(req, "content-type") ?? "binary/octet-stream",
          partCount: 0,
          lastModified: now(),
          checksum: received.checksum,
        };
        objects.set(entry.key, stored);
        if (previous) await rm(previous.file, { force: true });
        return { status: 200, headers: { etag: stored.etag, ...checksumHeaders(stored.checksum) } };
      }
      case "CreateMultipartUpload": {
        await drain(req);
        const uploadId = randomBytes(24).toString("base64url");
        const algorithm = header(req, "x-amz-checksum-algorithm")?.toLowerCase();
        uploads.set(uploadId, {
          bucket: entry.bucket,
          key: entry.key,
          contentType: header(req, "content-type") ?? "binary/octet-stream",
          checksumAlgorithm: algorithm,
          parts: new Map(),
        });
        return xmlReply(
          200,
          "InitiateMultipartUploadResult",
          `<Bucket>${escapeXml(entry.bucket)}</Bucket><Key>${escapeXml(entry.key)}</Key><UploadId>${uploadId}</UploadId>`,
          algorithm ? { "x-amz-checksum-algorithm": algorithm.toUpperCase() } : {},
        );
      }
      case "UploadPart": {
        const upload = findUpload(query.get("uploadId"), entry);
        const partNumber = Number(query.get("partNumber"));
        if (!Number.isInteger(partNumber) || partNumber < 1 || partNumber > 10_000)
          throw new S3Error(
            400,
            "InvalidArgument",
            "Part number must be an integer between 1 and 10000, inclusive",
          );
        const received = await receiveBody(auth);
        const previous = upload.parts.get(partNumber);
        const part: StoredPart = {
          file: received.file,
          size: received.size,
          md5: received.md5,
          etag: `"${received.md5.toString("hex")}"`,
          checksum: received.checksum,
        };
        upload.parts.set(partNumber, part);
        if (previous) await rm(previous.file, { force: true });
        return { status: 200, headers: { etag: part.etag, ...checksumHeaders(part.checksum) } };
      }
      case "CompleteMultipartUpload": {
        const upload = findUpload(query.get("uploadId"), entry);
        const xml = await readText(req, 1024 * 1024);
        const listed = parseCompleteBody(xml);
        if (listed.length === 0)
          throw new S3Error(
            400,
            "MalformedXML",
            "The XML you provided was not well-formed or did not validate against our published schema",
          );
        const parts: StoredPart[] = [];
        listed.forEach((item, index) => {
          if (index > 0 && item.partNumber <= (listed[index - 1]?.partNumber ?? 0))
            throw new S3Error(
              400,
              "InvalidPartOrder",
              "The list of parts was not in ascending order. Parts must be ordered by part number.",
            );
          const part = upload.parts.get(item.partNumber);
          if (!part || part.etag !== normalizeEtag(item.etag))
            throw new S3Error(
              400,
              "InvalidPart",
              "One or more of the specified parts could not be found.  The part may not have been uploaded, or the specified entity tag may not match the part's entity tag.",
            );
          for (const [algorithm, value] of Object.entries(item.checksums))
            if (part.checksum?.algorithm !== algorithm || part.checksum.value !== value)
              throw new S3Error(
                400,
                "InvalidPart",
                `The ${algorithm.toUpperCase()} of part ${item.partNumber} does not match the uploaded part.`,
              );
          if (index < listed.length - 1 && part.size < MIN_PART_BYTES)
            throw new S3Error(
              400,
              "EntityTooSmall",
              "Your proposed upload is smaller than the minimum allowed object size.",
            );
          parts.push(part);
        });
        const file = newFile();
        const hash = createHash("sha256");
        let size = 0;
        const out = createWriteStream(file);
        for (const part of parts) {
          for await (const chunk of createReadStream(part.file) as AsyncIterable<Buffer>) {
            hash.update(chunk);
            size += chunk.length;
            if (!out.write(chunk)) await once(out, "drain");
          }
        }
        out.end();
        await once(out, "finish");
        const etag = `"${createHash("md5")
          .update(Buffer.concat(parts.map((part) => part.md5)))
          .digest("hex")}-${parts.length}"`;
        const previous = objects.get(entry.key);
        objects.set(entry.key, {
          key: entry.key,
          file,
          size,
          sha256: hash.digest("hex"),
          etag,
          contentType: upload.contentType,
          partCount: parts.length,
          lastModified: now(),
          checksum: compositeChecksum(upload.checksumAlgorithm, parts),
        });
        uploads.delete(query.get("uploadId") ?? "");
        await Promise.all([
          ...[...upload.parts.values()].map((part) => rm(part.file, { force: true })),
          previous ? rm(previous.file, { force: true }) : undefined,
        ]);
        return xmlReply(
          200,
          "CompleteMultipartUploadResult",
          `<Location>${escapeXml(`${url}/${entry.bucket}/${entry.key}`)}</Location><Bucket>${escapeXml(entry.bucket)}</Bucket><Key>${escapeXml(entry.key)}</Key><ETag>${escapeXml(etag)}</ETag>`,
        );
      }
      case "AbortMultipartUpload": {
        const upload = findUpload(query.get("uploadId"), entry);
        uploads.delete(query.get("uploadId") ?? "");
        await Promise.all([...upload.parts.values()].map((part) => rm(part.file, { force: true })));
        return { status: 204, headers: {} };
      }
      case "GetObject":
      case "HeadObject": {
        const stored = objects.get(entry.key);
        if (!stored)
          throw new S3Error(404, "NoSuchKey", "The specified key does not exist.", { Key: entry.key });
        const headers: Record<string, string> = {
          "content-type": stored.contentType,
          etag: stored.etag,
          "last-modified": stored.lastModified.toUTCString(),
          "accept-ranges": "bytes",
        };
        const range = parseRange(header(req, "range"), stored.size);
        if (range === "unsatisfiable")
          throw new S3Error(416, "InvalidRange", "The requested range is not satisfiable", {
            RangeRequested: header(req, "range") ?? "",
            ActualObjectSize: String(stored.size),
            ContentRange: `bytes */${stored.size}`,
          });
        if (range) {
          return {
            status: 206,
            headers: {
              ...headers,
              "content-length": String(range.end - range.start + 1),
              "content-range": `bytes ${range.start}-${range.end}/${stored.size}`,
            },
            file: { path: stored.file, ...range },
          };
        }
        // Like S3, the whole object's checksum only on a whole-object read that asks for it.
        const wantsChecksum = header(req, "x-amz-checksum-mode")?.toUpperCase() === "ENABLED";
        return {
          status: 200,
          headers: {
            ...headers,
            "content-length": String(stored.size),
            ...(wantsChecksum ? checksumHeaders(stored.checksum) : {}),
          },
          ...(stored.size > 0
            ? { file: { path: stored.file, start: 0, end: stored.size - 1 } }
            : { body: "" }),
        };
      }
      case "DeleteObject": {
        const stored = objects.get(entry.key);
        objects.delete(entry.key);
        if (stored) await rm(stored.file, { force: true });
        return { status: 204, headers: {} };
      }
      default:
        throw new S3Error(
          501,
          "NotImplemented",
          "A header you provided implies functionality that is not implemented",
        );
    }
  };

  const findUpload = (uploadId: string | undefined, entry: FakeS3Request): Upload => {
    const upload = uploads.get(uploadId ?? "");
    if (!upload || upload.bucket !== entry.bucket || upload.key !== entry.key)
      throw new S3Error(
        404,
        "NoSuchUpload",
        "The specified upload does not exist. The upload ID may be invalid, or the upload may have been aborted or completed.",
        { UploadId: uploadId ?? "" },
      );
    return upload;
  };

  /** Reads a PutObject/UploadPart body to a new file, decoding and checking it as its headers say. */
  const receiveBody = async (auth: Auth): Promise<ReceivedBody> => {
    const { req } = auth;
    const mode = header(req, "x-amz-content-sha256") ?? "";
    const isChunked = (header(req, "content-encoding") ?? "")
      .split(",")
      .some((e) => e.trim() === "aws-chunked");
    const isStreaming = mode.startsWith("STREAMING-");
    if (isStreaming !== isChunked)
      throw new S3Error(
        400,
        "InvalidArgument",
        `x-amz-content-sha256 ${mode} does not fit Content-Encoding ${header(req, "content-encoding") ?? "(none)"}`,
      );
    const declared = isChunked ? header(req, "x-amz-decoded-content-length") : header(req, "content-length");
    if (declared === undefined)
      throw new S3Error(411, "MissingContentLength", "You must provide the Content-Length HTTP header.");
    const expectedSize = Number(declared);
    if (!Number.isSafeInteger(expectedSize) || expectedSize < 0)
      throw new S3Error(400, "InvalidArgument", "Invalid content length");
    if (expectedSize > MAX_PUT_BYTES)
      throw new S3Error(
        400,
        "EntityTooLarge",
        "Your proposed upload exceeds the maximum allowed object size.",
      );

    const trailerNames = (header(req, "x-amz-trailer") ?? "")
      .split(",")
      .map((name) => name.trim().toLowerCase())
      .filter(Boolean);
    let decoder: AwsChunkedDecoder | undefined;
    if (isChunked) {
      if (mode === "STREAMING-AWS4-HMAC-SHA256-PAYLOAD")
        decoder = new AwsChunkedDecoder({ signing: auth.signing, hasTrailer: false });
      else if (mode === "STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER")
        decoder = new AwsChunkedDecoder({ signing: auth.signing, hasTrailer: true });
      else if (mode === "STREAMING-UNSIGNED-PAYLOAD-TRAILER")
        decoder = new AwsChunkedDecoder({ signing: undefined, hasTrailer: true });
      else throw new S3Error(400, "InvalidArgument", `Unsupported x-amz-content-sha256 ${mode}`);
    } else if (mode !== "UNSIGNED-PAYLOAD" && !/^[0-9a-f]{64}$/.test(mode)) {
      throw new S3Error(
        400,
        "InvalidArgument",
        "x-amz-content-sha256 must be UNSIGNED-PAYLOAD, STREAMING-… or a hex SHA-256",
      );
    }

    const file = newFile();
    const out = createWriteStream(file);
    const sha256 = createHash("sha256");
    const md5 = createHash("md5");
    const checker = new ChecksumCalculator();
    let size = 0;
    let failure: S3Error | undefined;
    const write = async (data: Buffer) => {
      size += data.length;
      sha256.update(data);
      md5.update(data);
      checker.update(data);
      if (!out.write(data)) await once(out, "drain");
    };
    try {
      for await (const chunk of bodyOf(req)) {
        if (failure) continue;
        try {
          for (const data of decoder ? decoder.push(chunk) : [chunk]) await write(data);
        } catch (error) {
          // Keep reading so the client gets the answer instead of a reset connection.
          if (error instanceof S3Error) failure = error;
          else throw error;
        }
      }
      if (failure) throw failure;
      const trailers = decoder ? decoder.finish() : {};
      if (size !== expectedSize)
        throw new S3Error(
          400,
          "IncompleteBody",
          "You did not provide the number of bytes specified by the Content-Length HTTP header",
        );
      const hexSha256 = sha256.digest("hex");
      if (!isChunked && mode !== "UNSIGNED-PAYLOAD" && mode !== hexSha256)
        throw new S3Error(
          400,
          "XAmzContentSHA256Mismatch",
          "The provided 'x-amz-content-sha256' header does not match what was computed.",
          {
            ClientComputedContentSHA256: mode,
            S3ComputedContentSHA256: hexSha256,
          },
        );
      const md5Digest = md5.digest();
      const contentMd5 = header(req, "content-md5");
      if (contentMd5 !== undefined && contentMd5 !== md5Digest.toString("base64"))
        throw new S3Error(400, "BadDigest", "The Content-MD5 you specified did not match what we received.");
      for (const name of Object.keys(trailers))
        if (!trailerNames.includes(name))
          throw new S3Error(
            400,
            "MalformedTrailerError",
            `The trailer ${name} was not declared in x-amz-trailer.`,
          );
      const checksum = checker.verify(req, trailers);
      out.end();
      await once(out, "finish");
      return { file, size, sha256: hexSha256, md5: md5Digest, checksum };
    } catch (error) {
      out.destroy();
      await rm(file, { force: true });
      throw error;
    }
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => res.destroy(error as Error));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const publicObject = (stored: StoredObject): FakeS3Object => ({
    key: stored.key,
    size: stored.size,
    sha256: stored.sha256,
    etag: stored.etag,
    contentType: stored.contentType,
    partCount: stored.partCount,
  });

  return {
    url,
    region,
    accessKeyId,
    secretAccessKey,
    requests,
    get receivedBytes() {
      return receivedBytes;
    },
    object(bucket, key) {
      const stored = buckets.get(bucket)?.get(key);
      return stored ? publicObject(stored) : undefined;
    },
    keys(bucket) {
      return [...(buckets.get(bucket)?.keys() ?? [])].sort();
    },
    pendingUploads(bucket) {
      return [...uploads.values()].filter((upload) => upload.bucket === bucket).length;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => {
          rmSync(root, { recursive: true, force: true });
          resolve();
        });
        server.closeAllConnections();
      }),
  };
}

interface ReceivedBody {
  file: string;
  size: number;
  sha256: string;
  md5: Buffer;
  checksum: { algorithm: string; value: string } | undefined;
}

/** What a verified SigV4 `Authorization` header leaves for checking the body's chunk signatures. */
interface Signing {
  key: Buffer;
  amzDate: string;
  scope: string;
  seedSignature: string;
}

interface Auth {
  req: IncomingMessage;
  signing: Signing;
}

function authenticate(
  req: IncomingMessage,
  rawPath: string,
  rawQuery: string,
  expected: { accessKeyId: string; secretAccessKey: string; region: string; now: Date },
): Auth {
  const authorization = header(req, "authorization");
  if (!authorization) throw new S3Error(403, "AccessDenied", "Access Denied");
  const match =
    /^AWS4-HMAC-SHA256 Credential=([^/,\s]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request,\s*SignedHeaders=([a-z0-9;-]+),\s*Signature=([0-9a-f]{64})$/.exec(
      authorization,
    );
  if (!match)
    throw new S3Error(400, "AuthorizationHeaderMalformed", "The authorization header is malformed.");
  const [, accessKeyId = "", date = "", region = "", service = "", signedHeaders = "", signature = ""] =
    match;
  if (accessKeyId !== expected.accessKeyId)
    throw new S3Error(
      403,
      "InvalidAccessKeyId",
      "The AWS Access Key Id you provided does not exist in our records.",
      {
        AWSAccessKeyId: accessKeyId,
      },
    );
  if (region !== expected.region)
    throw new S3Error(
      400,
      "AuthorizationHeaderMalformed",
      `The authorization header is malformed; the region '${region}' is wrong; expecting '${expected.region}'`,
      { Region: expected.region },
    );
  if (service !== "s3")
    throw new S3Error(
      400,
      "AuthorizationHeaderMalformed",
      `The authorization header is malformed; incorrect service '${service}'. This endpoint belongs to 's3'.`,
    );
  const amzDate = header(req, "x-amz-date") ?? "";
  const signedAt = parseAmzDate(amzDate);
  if (!signedAt || !amzDate.startsWith(date))
    throw new S3Error(403, "AccessDenied", "AWS authentication requires a valid Date or x-amz-date header");
  if (Math.abs(signedAt.getTime() - expected.now.getTime()) > MAX_SKEW_MS)
    throw new S3Error(
      403,
      "RequestTimeTooSkewed",
      "The difference between the request time and the current time is too large.",
      {
        RequestTime: amzDate,
        ServerTime: expected.now.toISOString(),
      },
    );
  const payloadHash = header(req, "x-amz-content-sha256");
  if (payloadHash === undefined)
    throw new S3Error(
      400,
      "InvalidRequest",
      "Missing required header for this request: x-amz-content-sha256",
    );
  const names = signedHeaders.split(";");
  if (!names.includes("host"))
    throw new S3Error(
      400,
      "AuthorizationHeaderMalformed",
      "The authorization header is malformed; the host header must be signed.",
    );
  const canonicalRequest = [
    req.method ?? "",
    rawPath,
    canonicalQuery(rawQuery),
    ...names.map((name) => `${name}:${canonicalHeaderValue(req.headers[name])}`),
    "",
    signedHeaders,
    payloadHash,
  ].join("\n");
  const scope = `${date}/${region}/s3/aws4_request`;
  const stringToSign = ["AWS4-HMAC-SHA256", amzDate, scope, sha256Hex(canonicalRequest)].join("\n");
  const key = signingKey(expected.secretAccessKey, date, region);
  const computed = hmac(key, stringToSign).toString("hex");
  if (!sameHex(computed, signature))
    throw new S3Error(
      403,
      "SignatureDoesNotMatch",
      "The request signature we calculated does not match the signature you provided. Check your key and signing method.",
      {
        AWSAccessKeyId: accessKeyId,
        StringToSign: stringToSign,
        CanonicalRequest: canonicalRequest,
      },
    );
  return { req, signing: { key, amzDate, scope, seedSignature: signature } };
}

/**
 * Decodes an `aws-chunked` body (`<hex size>[;chunk-signature=<sig>]\r\n<data>\r\n` … a zero-size
 * chunk, then trailer lines and an empty line), checking the chain of chunk signatures and the
 * trailer's signature when the payload is signed.
 */
class AwsChunkedDecoder {
  readonly #signing: Signing | undefined;
  readonly #hasTrailer: boolean;
  #state: "header" | "data" | "data-end" | "trailer" | "done" = "header";
  #line = Buffer.alloc(0);
  #remaining = 0;
  #chunkSignature = "";
  #chunkHash: Hash | undefined;
  #previousSignature: string;
  readonly #trailers: [string, string][] = [];
  #trailerSignature: string | undefined;

  constructor({ signing, hasTrailer }: { signing: Signing | undefined; hasTrailer: boolean }) {
    this.#signing = signing;
    this.#hasTrailer = hasTrailer;
    this.#previousSignature = signing?.seedSignature ?? "";
  }

  /** Feeds raw body bytes; answers the decoded data they carried. */
  push(input: Buffer): Buffer[] {
    const out: Buffer[] = [];
    let at = 0;
    while (at < input.length) {
      if (this.#state === "done")
        throw new S3Error(400, "IncompleteBody", "Unexpected bytes after the final chunk.");
      if (this.#state === "data") {
        const take = Math.min(this.#remaining, input.length - at);
        const data = input.subarray(at, at + take);
        this.#chunkHash?.update(data);
        out.push(data);
        this.#remaining -= take;
        at += take;
        if (this.#remaining === 0) {
          this.#verifyChunk();
          this.#state = "data-end";
        }
        continue;
      }
      const newline = input.indexOf(0x0a, at);
      const end = newline === -1 ? input.length : newline + 1;
      this.#line = Buffer.concat([this.#line, input.subarray(at, end)]);
      at = end;
      if (this.#line.length > 8 * 1024)
        throw new S3Error(400, "InvalidChunkSizeError", "Chunk framing line too long.");
      if (newline === -1) continue;
      if (this.#line.at(-2) !== 0x0d)
        throw new S3Error(400, "IncompleteBody", "Chunk framing lines must end with CRLF.");
      const line = this.#line.subarray(0, -2).toString("latin1");
      this.#line = Buffer.alloc(0);
      this.#onLine(line);
    }
    return out;
  }

  /** Called at the end of the body; answers the trailing headers, lower-cased. */
  finish(): Record<string, string> {
    if (this.#state !== "done")
      throw new S3Error(400, "IncompleteBody", "The request body ended before the final chunk.");
    return Object.fromEntries(this.#trailers);
  }

  #onLine(line: string): void {
    if (this.#state === "data-end") {
      if (line !== "") throw new S3Error(400, "IncompleteBody", "Chunk data longer than its declared size.");
      this.#state = "header";
      return;
    }
    if (this.#state === "header") {
      const match = /^([0-9a-fA-F]{1,16})(?:;chunk-signature=([0-9a-f]{64}))?$/.exec(line);
      if (!match)
        throw new S3Error(
          400,
          "InvalidChunkSizeError",
          `Malformed chunk header ${JSON.stringify(line.slice(0, 100))}`,
        );
      const size = Number.parseInt(match[1] ?? "", 16);
      const signature = match[2];
      if (this.#signing && !signature)
        throw new S3Error(
          403,
          "SignatureDoesNotMatch",
          "A chunk of a signed payload has no chunk-signature.",
        );
      if (!this.#signing && signature)
        throw new S3Error(400, "InvalidArgument", "Chunk signatures on an unsigned payload.");
      this.#chunkSignature = signature ?? "";
      this.#chunkHash = this.#signing ? createHash("sha256") : undefined;
      if (size > 0) {
        this.#remaining = size;
        this.#state = "data";
        return;
      }
      this.#verifyChunk();
      this.#state = "trailer";
      return;
    }
    if (this.#state === "trailer") {
      if (line === "") {
        this.#finishTrailer();
        this.#state = "done";
        return;
      }
      const colon = line.indexOf(":");
      if (colon <= 0)
        throw new S3Error(
          400,
          "MalformedTrailerError",
          "The request contained trailing data that was not well-formed.",
        );
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      if (!this.#hasTrailer)
        throw new S3Error(400, "MalformedTrailerError", "Trailing headers on a payload that declared none.");
      if (name === "x-amz-trailer-signature") this.#trailerSignature = value;
      else this.#trailers.push([name, value]);
    }
  }

  #verifyChunk(): void {
    const signing = this.#signing;
    if (!signing) return;
    const stringToSign = [
      "AWS4-HMAC-SHA256-PAYLOAD",
      signing.amzDate,
      signing.scope,
      this.#previousSignature,
      EMPTY_SHA256,
      this.#chunkHash?.digest("hex") ?? EMPTY_SHA256,
    ].join("\n");
    const computed = hmac(signing.key, stringToSign).toString("hex");
    if (!sameHex(computed, this.#chunkSignature))
      throw new S3Error(
        403,
        "SignatureDoesNotMatch",
        "The chunk signature we calculated does not match the signature you provided.",
      );
    this.#previousSignature = computed;
  }

  #finishTrailer(): void {
    const signing = this.#signing;
    if (!signing || !this.#hasTrailer) return;
    if (this.#trailerSignature === undefined)
      throw new S3Error(
        403,
        "SignatureDoesNotMatch",
        "The trailing headers of a signed payload carry no x-amz-trailer-signature.",
      );
    const canonical = this.#trailers.map(([name, value]) => `${name}:${value}\n`).join("");
    const stringToSign = [
      "AWS4-HMAC-SHA256-TRAILER",
      signing.amzDate,
      signing.scope,
      this.#previousSignature,
      sha256Hex(canonical),
    ].join("\n");
    if (!sameHex(hmac(signing.key, stringToSign).toString("hex"), this.#trailerSignature))
      throw new S3Error(
        403,
        "SignatureDoesNotMatch",
        "The trailer signature we calculated does not match the signature you provided.",
      );
  }
}

const CHECKSUM_ALGORITHMS = ["crc32", "crc32c", "crc64nvme", "sha1", "sha256"] as const;

/** Computes every checksum S3 can be asked to verify; `verify` checks the one the request names. */
class ChecksumCalculator {
  #crc32 = 0;
  #crc32c = 0;
  readonly #sha1 = createHash("sha1");
  readonly #sha256 = createHash("sha256");

  update(data: Buffer): void {
    this.#crc32 = crc32(data, this.#crc32);
    this.#crc32c = crc32c(data, this.#crc32c);
    this.#sha1.update(data);
    this.#sha256.update(data);
  }

  /** The `x-amz-checksum-*` value given in a header or trailer, verified; undefined when none was given. */
  verify(
    req: IncomingMessage,
    trailers: Record<string, string>,
  ): { algorithm: string; value: string } | undefined {
    const given = CHECKSUM_ALGORITHMS.flatMap((algorithm) => {
      const value = header(req, `x-amz-checksum-${algorithm}`) ?? trailers[`x-amz-checksum-${algorithm}`];
      return value === undefined ? [] : [{ algorithm, value }];
    });
    if (given.length > 1)
      throw new S3Error(
        400,
        "InvalidRequest",
        "Expecting a single x-amz-checksum- header. Multiple checksum Types are not allowed.",
      );
    const [checksum] = given;
    if (!checksum) return undefined;
    const declared = header(req, "x-amz-sdk-checksum-algorithm")?.toLowerCase();
    if (declared && declared !== checksum.algorithm)
      throw new S3Error(400, "InvalidRequest", `Value for x-amz-sdk-checksum-algorithm header is invalid.`);
    const computed = this.#value(checksum.algorithm);
    // CRC64/NVME is accepted unverified: a 64-bit CRC in JavaScript is too slow for large test objects.
    if (computed !== undefined && computed !== checksum.value)
      throw new S3Error(
        400,
        "BadDigest",
        `The ${checksum.algorithm.toUpperCase()} you specified did not match the calculated checksum.`,
      );
    return checksum;
  }

  #value(algorithm: string): string | undefined {
    const int = (value: number) => {
      const bytes = Buffer.alloc(4);
      bytes.writeUInt32BE(value >>> 0);
      return bytes.toString("base64");
    };
    if (algorithm === "crc32") return int(this.#crc32);
    if (algorithm === "crc32c") return int(this.#crc32c);
    if (algorithm === "sha1") return this.#sha1.digest("base64");
    if (algorithm === "sha256") return this.#sha256.digest("base64");
    return undefined;
  }
}

const CRC32C_TABLE = (() => {
  const table = new Int32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0x82f63b78 ^ (c >>> 1) : c >>> 1;
    table[n] = c;
  }
  return table;
})();

/** CRC-32C (Castagnoli), continuing from `previous` like zlib's `crc32`. */
function crc32c(data: Buffer, previous: number): number {
  let crc = ~previous;
  for (let i = 0; i < data.length; i++)
    crc = (CRC32C_TABLE[(crc ^ (data[i] ?? 0)) & 0xff] ?? 0) ^ (crc >>> 8);
  return ~crc >>> 0;
}

/** A multipart object's checksum as S3 answers it: the checksum of the parts' checksums, `-<count>`. */
function compositeChecksum(
  algorithm: string | undefined,
  parts: StoredPart[],
): { algorithm: string; value: string } | undefined {
  if (!algorithm || parts.some((part) => part.checksum?.algorithm !== algorithm)) return undefined;
  const joined = Buffer.concat(parts.map((part) => Buffer.from(part.checksum?.value ?? "", "base64")));
  let digest: Buffer;
  if (algorithm === "crc32" || algorithm === "crc32c") {
    digest = Buffer.alloc(4);
    digest.writeUInt32BE(algorithm === "crc32" ? crc32(joined) : crc32c(joined, 0));
  } else if (algorithm === "sha1" || algorithm === "sha256") {
    digest = createHash(algorithm).update(joined).digest();
  } else {
    return undefined;
  }
  return { algorithm, value: `${digest.toString("base64")}-${parts.length}` };
}

function checksumHeaders(checksum: { algorithm: string; value: string } | undefined): Record<string, string> {
  return checksum ? { [`x-amz-checksum-${checksum.algorithm}`]: checksum.value } : {};
}

function operationOf(method: string, key: string, query: Map<string, string>): string {
  if (key === "") return method === "HEAD" ? "HeadBucket" : "Unknown";
  if (method === "PUT") return query.has("uploadId") ? "UploadPart" : "PutObject";
  if (method === "POST" && query.has("uploads")) return "CreateMultipartUpload";
  if (method === "POST" && query.has("uploadId")) return "CompleteMultipartUpload";
  if (method === "DELETE") return query.has("uploadId") ? "AbortMultipartUpload" : "DeleteObject";
  if (method === "GET") return "GetObject";
  if (method === "HEAD") return "HeadObject";
  return "Unknown";
}

/** One `bytes=` range as S3 honours it; undefined means the whole object (S3 ignores ranges it cannot parse). */
function parseRange(
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

function parseCompleteBody(
  xml: string,
): { partNumber: number; etag: string; checksums: Record<string, string> }[] {
  return [...xml.matchAll(/<Part>([\s\S]*?)<\/Part>/g)].map(([, body = ""]) => {
    const field = (name: string) => {
      const found = new RegExp(`<${name}>([\\s\\S]*?)</${name}>`).exec(body)?.[1];
      return found === undefined ? undefined : unescapeXml(found.trim());
    };
    const checksums: Record<string, string> = {};
    for (const algorithm of CHECKSUM_ALGORITHMS) {
      const value = field(`Checksum${algorithm.toUpperCase()}`);
      if (value !== undefined) checksums[algorithm] = value;
    }
    return { partNumber: Number(field("PartNumber")), etag: field("ETag") ?? "", checksums };
  });
}

function normalizeEtag(etag: string): string {
  const bare = etag.replace(/^"|"$/g, "");
  return `"${bare}"`;
}

function xmlReply(
  status: number,
  element: string,
  inner: string,
  headers: Record<string, string> = {},
): { status: number; headers: Record<string, string>; body: string } {
  return {
    status,
    headers: { "content-type": "application/xml", ...headers },
    body: `<?xml version="1.0" encoding="UTF-8"?>\n<${element} xmlns="${XMLNS}">${inner}</${element}>`,
  };
}

function errorXml(code: string, message: string, requestId: string, extra: Record<string, string>): string {
  const fields = Object.entries(extra)
    .filter(([name]) => name !== "ContentRange")
    .map(([name, value]) => `<${name}>${escapeXml(value)}</${name}>`)
    .join("");
  return `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${escapeXml(message)}</Message>${fields}<RequestId>${requestId}</RequestId><HostId>${Buffer.from(requestId).toString("base64")}</HostId></Error>`;
}

function escapeXml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => `&${{ "&": "amp", "<": "lt", ">": "gt", '"': "quot", "'": "apos" }[c]};`,
  );
}

function unescapeXml(text: string): string {
  return text.replace(
    /&(amp|lt|gt|quot|apos|#(\d+)|#x([0-9a-fA-F]+));/g,
    (_, name: string, dec?: string, hex?: string) => {
      if (dec) return String.fromCodePoint(Number(dec));
      if (hex) return String.fromCodePoint(Number.parseInt(hex, 16));
      return { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" }[name] ?? "";
    },
  );
}

function parseQuery(raw: string): Map<string, string> {
  const query = new Map<string, string>();
  for (const [name, value] of queryPairs(raw)) query.set(name, value);
  return query;
}

function queryPairs(raw: string): [string, string][] {
  if (raw === "") return [];
  return raw.split("&").map((pair) => {
    const equals = pair.indexOf("=");
    const name = equals === -1 ? pair : pair.slice(0, equals);
    const value = equals === -1 ? "" : pair.slice(equals + 1);
    return [decodeURIComponent(name), decodeURIComponent(value)];
  });
}

/** SigV4's canonical query string: every pair URI-encoded (RFC 3986), sorted by name then value. */
function canonicalQuery(raw: string): string {
  return queryPairs(raw)
    .map(([name, value]) => [uriEncode(name), uriEncode(value)] as const)
    .sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0))
    .map(([name, value]) => `${name}=${value}`)
    .join("&");
}

function uriEncode(text: string): string {
  return encodeURIComponent(text).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

function canonicalHeaderValue(value: string | string[] | undefined): string {
  const joined = Array.isArray(value) ? value.join(",") : (value ?? "");
  return joined.trim().replace(/\s+/g, " ");
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(",") : value;
}

function parseAmzDate(value: string): Date | undefined {
  const match = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value);
  if (!match) return undefined;
  const [, y, mo, d, h, mi, s] = match.map(Number) as number[];
  return new Date(Date.UTC(y ?? 0, (mo ?? 1) - 1, d, h, mi, s));
}

function signingKey(secret: string, date: string, region: string): Buffer {
  const dateKey = hmac(Buffer.from(`AWS4${secret}`), date);
  return hmac(hmac(hmac(dateKey, region), "s3"), "aws4_request");
}

function hmac(key: Buffer, data: string): Buffer {
  return createHmac("sha256", key).update(data).digest();
}

function sha256Hex(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

function sameHex(a: string, b: string): boolean {
  return a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));
}
