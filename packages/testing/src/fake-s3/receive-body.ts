import { createHash } from "node:crypto";
import { once } from "node:events";
import { createWriteStream } from "node:fs";
import { rm } from "node:fs/promises";
import { AwsChunkedDecoder } from "./aws-chunked.ts";
import { type Checksum, ChecksumCalculator } from "./checksums.ts";
import { header } from "./http.ts";
import type { S3Call, S3Server } from "./operation.ts";
import { S3Error } from "./s3-error.ts";

const MAX_PUT_BYTES = 5 * 1024 * 1024 * 1024;

export interface ReceivedBody {
  file: string;
  size: number;
  /** Hex SHA-256 of the decoded bytes. */
  sha256: string;
  md5: Buffer;
  checksum: Checksum | undefined;
}

/**
 * Reads a PutObject/UploadPart body to a new file, decoding and checking it as its headers say:
 * `x-amz-content-sha256` picks plain, signed `aws-chunked` or unsigned-with-trailer, and the
 * payload hash, Content-MD5 and `x-amz-checksum-*` are verified. On any failure the file is removed.
 */
export async function receiveBody(
  { req, signing }: Pick<S3Call, "req" | "signing">,
  { bodies, store }: Pick<S3Server, "bodies" | "store">,
): Promise<ReceivedBody> {
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
    throw new S3Error(400, "EntityTooLarge", "Your proposed upload exceeds the maximum allowed object size.");

  let decoder: AwsChunkedDecoder | undefined;
  if (isChunked) {
    if (mode === "STREAMING-AWS4-HMAC-SHA256-PAYLOAD")
      decoder = new AwsChunkedDecoder({ signing, hasTrailer: false });
    else if (mode === "STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER")
      decoder = new AwsChunkedDecoder({ signing, hasTrailer: true });
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

  const file = store.newFile();
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
    for await (const chunk of bodies.read(req)) {
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
    const checksum = checker.verify(req, trailers);
    out.end();
    await once(out, "finish");
    return { file, size, sha256: hexSha256, md5: md5Digest, checksum };
  } catch (error) {
    out.destroy();
    await rm(file, { force: true });
    throw error;
  }
}
