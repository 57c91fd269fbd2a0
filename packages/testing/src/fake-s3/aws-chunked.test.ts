import { describe, expect, it } from "vitest";
import { AwsChunkedDecoder } from "./aws-chunked.ts";
import { authenticate } from "./sigv4.ts";

// AWS's worked example of a signed chunked upload (AmazonS3/latest/API/sigv4-streaming.html):
// 64 KiB + 1 KiB of "a" in signed chunks, chaining from the request's own signature.
const signing = authenticate(
  {
    method: "PUT",
    headers: {
      host: "s3.amazonaws.com",
      "x-amz-date": "20130524T000000Z",
      "x-amz-storage-class": "REDUCED_REDUNDANCY",
      "content-encoding": "aws-chunked",
      "content-length": "66824",
      "x-amz-decoded-content-length": "66560",
      "x-amz-content-sha256": "STREAMING-AWS4-HMAC-SHA256-PAYLOAD",
      authorization:
        "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,SignedHeaders=content-encoding;content-length;host;x-amz-content-sha256;x-amz-date;x-amz-decoded-content-length;x-amz-storage-class,Signature=4f232c4386841ef735655705268965c44a0e4690baa4adea153f7db9fa80a0a9",
    },
  },
  "/examplebucket/chunkObject.txt",
  "",
  {
    accessKeyId: "AKIAIOSFODNN7EXAMPLE",
    secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    region: "us-east-1",
    now: new Date("2013-05-24T00:00:00Z"),
  },
);
const a64k = "a".repeat(65536);
const a1k = "a".repeat(1024);
const body =
  `10000;chunk-signature=ad80c730a21e5b8d04586a2213dd63b9a0e99e0e2307b0ade35a65485a288648\r\n${a64k}\r\n` +
  `400;chunk-signature=0055627c9e194cb4542bae2aa5492e3c1575bbb81b612b7d234b86a503ef5497\r\n${a1k}\r\n` +
  "0;chunk-signature=b6c6ea8a5354eaf15b3cb7646744f4275b71ea724fed81ceb9323e279d449df9\r\n\r\n";

/** Feeds the body in pieces of `size` bytes, as TCP may cut it anywhere, framing lines included. */
function decode(decoder: AwsChunkedDecoder, text: string, size: number): string {
  const input = Buffer.from(text);
  const out: Buffer[] = [];
  for (let at = 0; at < input.length; at += size) out.push(...decoder.push(input.subarray(at, at + size)));
  decoder.finish();
  return Buffer.concat(out).toString();
}

describe("AwsChunkedDecoder", () => {
  it("decodes AWS's signed example however the body is cut, verifying each chunk signature", () => {
    for (const size of [body.length, 7, 1 << 16]) {
      expect(decode(new AwsChunkedDecoder({ signing, hasTrailer: false }), body, size)).toBe(a64k + a1k);
    }
  });

  it("refuses a chunk whose bytes changed after signing: 403 SignatureDoesNotMatch", () => {
    const changed = body.replace("a\r\n400;", "b\r\n400;");
    expect(() => decode(new AwsChunkedDecoder({ signing, hasTrailer: false }), changed, 4096)).toThrow(
      expect.objectContaining({ status: 403, code: "SignatureDoesNotMatch" }),
    );
  });

  it("refuses a signed payload's chunk that carries no signature: 403 SignatureDoesNotMatch", () => {
    const unsigned = body.replace(/;chunk-signature=[0-9a-f]{64}/, "");
    expect(() => decode(new AwsChunkedDecoder({ signing, hasTrailer: false }), unsigned, 4096)).toThrow(
      expect.objectContaining({ status: 403, code: "SignatureDoesNotMatch" }),
    );
  });

  it("refuses a body that ends before its final chunk: 400 IncompleteBody", () => {
    expect(() =>
      decode(new AwsChunkedDecoder({ signing, hasTrailer: false }), body.slice(0, 66_000), 4096),
    ).toThrow(expect.objectContaining({ status: 400, code: "IncompleteBody" }));
  });

  it("answers an unsigned payload's trailers, lower-cased", () => {
    const decoder = new AwsChunkedDecoder({ signing: undefined, hasTrailer: true });
    const unsigned = "5\r\nhello\r\n0\r\nX-Amz-Checksum-CRC32:NhCmhg==\r\n\r\n";
    expect(decoder.push(Buffer.from(unsigned)).map(String)).toEqual(["hello"]);
    expect(decoder.finish()).toEqual({ "x-amz-checksum-crc32": "NhCmhg==" });
  });
});
