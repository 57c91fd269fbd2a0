import { createHash, randomBytes } from "node:crypto";
import { once } from "node:events";
import { createReadStream, createWriteStream } from "node:fs";
import { rm } from "node:fs/promises";
import { CHECKSUM_ALGORITHMS, checksumHeaders, compositeChecksum } from "./checksums.ts";
import { header } from "./http.ts";
import type { Operation, S3Call, S3Server } from "./operation.ts";
import { receiveBody } from "./receive-body.ts";
import { S3Error } from "./s3-error.ts";
import type { StoredPart, Upload } from "./store.ts";
import { escapeXml, unescapeXml, xmlReply } from "./xml.ts";

/** S3's minimum size for every part but the last, checked at completion as S3 does. */
const MIN_PART_BYTES = 5 * 1024 * 1024;

export const createMultipartUpload: Operation = async ({ req, bucket, key }, { bodies, store }) => {
  await bodies.drain(req);
  const uploadId = randomBytes(24).toString("base64url");
  const algorithm = header(req, "x-amz-checksum-algorithm")?.toLowerCase();
  store.uploads.set(uploadId, {
    bucket,
    key,
    contentType: header(req, "content-type") ?? "binary/octet-stream",
    checksumAlgorithm: algorithm,
    parts: new Map(),
  });
  return xmlReply(
    200,
    "InitiateMultipartUploadResult",
    `<Bucket>${escapeXml(bucket)}</Bucket><Key>${escapeXml(key)}</Key><UploadId>${uploadId}</UploadId>`,
    algorithm ? { "x-amz-checksum-algorithm": algorithm.toUpperCase() } : {},
  );
};

/** Stores one part, replacing an earlier part of the same number as S3 does. */
export const uploadPart: Operation = async (call, server) => {
  const upload = findUpload(call, server);
  const partNumber = Number(call.query.get("partNumber"));
  if (!Number.isInteger(partNumber) || partNumber < 1 || partNumber > 10_000)
    throw new S3Error(
      400,
      "InvalidArgument",
      "Part number must be an integer between 1 and 10000, inclusive",
    );
  const received = await receiveBody(call, server);
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
};

/**
 * Joins the listed parts into the object, checking them as S3 does: ascending part numbers, each
 * part's ETag and checksums, and 5 MiB for every part but the last. Parts uploaded but not listed
 * are discarded.
 */
export const completeMultipartUpload: Operation = async (call, server) => {
  const { req, bucket, key, objects } = call;
  const upload = findUpload(call, server);
  const listed = parseCompleteBody(await server.bodies.readText(req, 1024 * 1024));
  const parts = checkListedParts(upload, listed);
  const file = server.store.newFile();
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
  // S3's multipart ETag: the MD5 of the parts' binary MD5s, then `-<count>`.
  const etag = `"${createHash("md5")
    .update(Buffer.concat(parts.map((part) => part.md5)))
    .digest("hex")}-${parts.length}"`;
  const previous = objects.get(key);
  objects.set(key, {
    key,
    file,
    size,
    sha256: hash.digest("hex"),
    etag,
    contentType: upload.contentType,
    partCount: parts.length,
    lastModified: server.now(),
    checksum: compositeChecksum(upload.checksumAlgorithm, parts),
  });
  server.store.uploads.delete(call.query.get("uploadId") ?? "");
  await Promise.all([
    ...[...upload.parts.values()].map((part) => rm(part.file, { force: true })),
    previous ? rm(previous.file, { force: true }) : undefined,
  ]);
  return xmlReply(
    200,
    "CompleteMultipartUploadResult",
    `<Location>${escapeXml(`${server.url}/${bucket}/${key}`)}</Location><Bucket>${escapeXml(bucket)}</Bucket><Key>${escapeXml(key)}</Key><ETag>${escapeXml(etag)}</ETag>`,
  );
};

export const abortMultipartUpload: Operation = async (call, server) => {
  const upload = findUpload(call, server);
  server.store.uploads.delete(call.query.get("uploadId") ?? "");
  await Promise.all([...upload.parts.values()].map((part) => rm(part.file, { force: true })));
  return { status: 204, headers: {} };
};

/** The upload named by `?uploadId=`; S3 answers NoSuchUpload too when it belongs to another key. */
function findUpload({ bucket, key, query }: S3Call, { store }: S3Server): Upload {
  const uploadId = query.get("uploadId");
  const upload = store.uploads.get(uploadId ?? "");
  if (!upload || upload.bucket !== bucket || upload.key !== key)
    throw new S3Error(
      404,
      "NoSuchUpload",
      "The specified upload does not exist. The upload ID may be invalid, or the upload may have been aborted or completed.",
      { UploadId: uploadId ?? "" },
    );
  return upload;
}

interface ListedPart {
  partNumber: number;
  etag: string;
  checksums: Record<string, string>;
}

function checkListedParts(upload: Upload, listed: ListedPart[]): StoredPart[] {
  if (listed.length === 0)
    throw new S3Error(
      400,
      "MalformedXML",
      "The XML you provided was not well-formed or did not validate against our published schema",
    );
  return listed.map((item, index) => {
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
    return part;
  });
}

/** The `<Part>`s of a CompleteMultipartUpload body; a regular expression suffices for what the SDK sends. */
function parseCompleteBody(xml: string): ListedPart[] {
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

/** Clients send ETags with or without their quotes; stored ones have them. */
function normalizeEtag(etag: string): string {
  const bare = etag.replace(/^"|"$/g, "");
  return `"${bare}"`;
}
