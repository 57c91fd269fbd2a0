import { randomBytes } from "node:crypto";
import { createReadStream } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { finished, pipeline } from "node:stream/promises";
import { header, parseQuery } from "./http.ts";
import {
  abortMultipartUpload,
  completeMultipartUpload,
  createMultipartUpload,
  uploadPart,
} from "./multipart.ts";
import { deleteObject, getObject, putObject } from "./objects.ts";
import type { Operation, S3Server } from "./operation.ts";
import { S3Error } from "./s3-error.ts";
import { authenticate, type SigningExpectation } from "./sigv4.ts";
import type { FakeS3Request } from "./types.ts";
import { errorXml } from "./xml.ts";

const OPERATIONS: Record<string, Operation> = {
  HeadBucket: async (_, { region }) => ({ status: 200, headers: { "x-amz-bucket-region": region } }),
  PutObject: putObject,
  CreateMultipartUpload: createMultipartUpload,
  UploadPart: uploadPart,
  CompleteMultipartUpload: completeMultipartUpload,
  AbortMultipartUpload: abortMultipartUpload,
  GetObject: getObject,
  HeadObject: getObject,
  DeleteObject: deleteObject,
};

/**
 * Answers one request: records it, authenticates it, finds the bucket, runs the operation and
 * writes its reply, or S3's XML error (none on HEAD, as S3 sends none).
 */
export async function handleRequest(
  server: S3Server,
  credentials: Omit<SigningExpectation, "now">,
  requests: FakeS3Request[],
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
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
    const signing = authenticate(req, rawPath, rawQuery, { ...credentials, now: server.now() });
    const objects = server.store.buckets.get(entry.bucket);
    if (!objects)
      throw new S3Error(404, "NoSuchBucket", "The specified bucket does not exist", {
        BucketName: entry.bucket,
      });
    const operation = OPERATIONS[entry.operation];
    if (!operation)
      throw new S3Error(
        501,
        "NotImplemented",
        "A header you provided implies functionality that is not implemented",
      );
    const reply = await operation({ req, signing, bucket: entry.bucket, key, query, objects }, server);
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
    res.end(req.method === "HEAD" ? undefined : errorXml(error.code, error.message, requestId, error.extra));
  }
}

/** The S3 operation a path-style request names, by method and query (`?uploads`, `?uploadId=`). */
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
