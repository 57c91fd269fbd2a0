import { createHash, type Hash } from "node:crypto";
import { S3Error } from "./s3-error.ts";
import { hmac, type Signing, sameHex, sha256Hex } from "./sigv4.ts";

/** What S3 calls the fixed hash of an empty payload, used in chunk signatures. */
const EMPTY_SHA256 = createHash("sha256").digest("hex");

/**
 * Decodes an `aws-chunked` body (`<hex size>[;chunk-signature=<sig>]\r\n<data>\r\n` … a zero-size
 * chunk, then trailer lines and an empty line), checking the chain of chunk signatures and the
 * trailer's signature when the payload is signed.
 */
export class AwsChunkedDecoder {
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
