import { createHash } from "node:crypto";
import { crc32 } from "node:zlib";
import { header, type RequestHead } from "./http.ts";
import { S3Error } from "./s3-error.ts";

/** The algorithms of `x-amz-checksum-<algorithm>`, lower-cased as in the header names. */
export const CHECKSUM_ALGORITHMS = ["crc32", "crc32c", "crc64nvme", "sha1", "sha256"] as const;

/** A checksum as S3 carries it: the algorithm and the base64 value (`-<parts>` after a composite one). */
export interface Checksum {
  algorithm: string;
  value: string;
}

/** Computes every checksum S3 can be asked to verify as the bytes stream by; `verify` checks the one the request names. */
export class ChecksumCalculator {
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

  /**
   * The `x-amz-checksum-*` value given in a header or trailer, verified; undefined when none was given.
   * Trailers arrive lower-cased from the `aws-chunked` decoder and must have been declared in `x-amz-trailer`.
   */
  verify(req: RequestHead, trailers: Record<string, string>): Checksum | undefined {
    const declaredTrailers = (header(req, "x-amz-trailer") ?? "")
      .split(",")
      .map((name) => name.trim().toLowerCase())
      .filter(Boolean);
    for (const name of Object.keys(trailers))
      if (!declaredTrailers.includes(name))
        throw new S3Error(
          400,
          "MalformedTrailerError",
          `The trailer ${name} was not declared in x-amz-trailer.`,
        );
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
    const computed = this.digest(checksum.algorithm);
    // CRC64/NVME is accepted unverified: a 64-bit CRC in JavaScript is too slow for large test objects.
    if (computed !== undefined && computed !== checksum.value)
      throw new S3Error(
        400,
        "BadDigest",
        `The ${checksum.algorithm.toUpperCase()} you specified did not match the calculated checksum.`,
      );
    return checksum;
  }

  /**
   * The base64 value of everything seen so far, as S3 writes it; undefined for CRC64/NVME, which is not
   * computed. The SHA digests can be taken once per calculator.
   */
  digest(algorithm: string): string | undefined {
    if (algorithm === "crc32") return uint32Base64(this.#crc32);
    if (algorithm === "crc32c") return uint32Base64(this.#crc32c);
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

/** CRC-32C (Castagnoli), continuing from `previous` like zlib's `crc32`; Node has no built-in one. */
export function crc32c(data: Buffer, previous = 0): number {
  let crc = ~previous;
  for (let i = 0; i < data.length; i++)
    crc = (CRC32C_TABLE[(crc ^ (data[i] ?? 0)) & 0xff] ?? 0) ^ (crc >>> 8);
  return ~crc >>> 0;
}

/**
 * A multipart object's checksum as S3 answers it: the checksum of the parts' raw checksums, then
 * `-<count>`. Undefined when the upload named no algorithm or a part was sent without that one.
 */
export function compositeChecksum(
  algorithm: string | undefined,
  parts: { checksum: Checksum | undefined }[],
): Checksum | undefined {
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

/** The `x-amz-checksum-<algorithm>` answer header for a stored checksum, if any. */
export function checksumHeaders(checksum: Checksum | undefined): Record<string, string> {
  return checksum ? { [`x-amz-checksum-${checksum.algorithm}`]: checksum.value } : {};
}

function uint32Base64(value: number): string {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32BE(value >>> 0);
  return bytes.toString("base64");
}
