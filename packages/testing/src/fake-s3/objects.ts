import { rm } from "node:fs/promises";
import { checksumHeaders } from "./checksums.ts";
import { header, parseRange } from "./http.ts";
import type { Operation } from "./operation.ts";
import { receiveBody } from "./receive-body.ts";
import { S3Error } from "./s3-error.ts";
import type { StoredObject } from "./store.ts";

/** Stores the body under the key, replacing (and deleting the bytes of) what was there. */
export const putObject: Operation = async (call, server) => {
  const received = await receiveBody(call, server);
  const previous = call.objects.get(call.key);
  const stored: StoredObject = {
    key: call.key,
    file: received.file,
    size: received.size,
    sha256: received.sha256,
    etag: `"${received.md5.toString("hex")}"`,
    contentType: header(call.req, "content-type") ?? "binary/octet-stream",
    partCount: 0,
    lastModified: server.now(),
    checksum: received.checksum,
  };
  call.objects.set(call.key, stored);
  if (previous) await rm(previous.file, { force: true });
  return { status: 200, headers: { etag: stored.etag, ...checksumHeaders(stored.checksum) } };
};

/** GetObject and HeadObject: the same headers, the handler leaves the body out for HEAD. */
export const getObject: Operation = async ({ req, key, objects }) => {
  const stored = objects.get(key);
  if (!stored) throw new S3Error(404, "NoSuchKey", "The specified key does not exist.", { Key: key });
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
    ...(stored.size > 0 ? { file: { path: stored.file, start: 0, end: stored.size - 1 } } : { body: "" }),
  };
};

/** Like S3, 204 whether or not the key existed. */
export const deleteObject: Operation = async ({ key, objects }) => {
  const stored = objects.get(key);
  objects.delete(key);
  if (stored) await rm(stored.file, { force: true });
  return { status: 204, headers: {} };
};
