import { createHash } from "node:crypto";
import { request } from "node:http";
import { Readable } from "node:stream";
import {
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
  UploadPartCommand,
} from "@aws-sdk/client-s3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeS3, startFakeS3 } from "./fake-s3.ts";

/** Sends one raw request, for what the SDK never sends (AWS's documented examples, tampering). */
function send(
  url: string,
  init: { method: string; path: string; headers: Record<string, string>; body?: string },
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}${init.path}`, { method: init.method, headers: init.headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: Buffer.concat(chunks).toString(),
        }),
      );
    });
    req.on("error", reject);
    req.end(init.body);
  });
}

function clientOf(
  fake: FakeS3,
  credentials = { accessKeyId: fake.accessKeyId, secretAccessKey: fake.secretAccessKey },
) {
  return new S3Client({ endpoint: fake.url, region: fake.region, forcePathStyle: true, credentials });
}

// AWS's worked examples of chunked uploads (AmazonS3/latest/API/sigv4-streaming.html and
// sigv4-streaming-trailers.html): 64 KiB + 1 KiB of "a", signed with the documentation's key pair
// on 2013-05-24, so the fake's clock is set to that day.
describe("AWS's published streaming-signature examples", () => {
  let fake: FakeS3;
  const a64k = "a".repeat(65536);
  const a1k = "a".repeat(1024);
  const common = {
    host: "s3.amazonaws.com",
    "x-amz-date": "20130524T000000Z",
    "x-amz-storage-class": "REDUCED_REDUNDANCY",
    "content-encoding": "aws-chunked",
    "x-amz-decoded-content-length": "66560",
  };
  const credential = "Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request";

  beforeAll(async () => {
    fake = await startFakeS3({
      accessKeyId: "AKIAIOSFODNN7EXAMPLE",
      secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
      buckets: ["examplebucket"],
      now: () => new Date("2013-05-24T00:03:00Z"),
    });
  });
  afterAll(() => fake.close());

  const signedChunks = (signatures: [string, string, string]) =>
    `10000;chunk-signature=${signatures[0]}\r\n${a64k}\r\n` +
    `400;chunk-signature=${signatures[1]}\r\n${a1k}\r\n` +
    `0;chunk-signature=${signatures[2]}\r\n`;
  const example1 = {
    method: "PUT",
    path: "/examplebucket/chunkObject.txt",
    headers: {
      ...common,
      "content-length": "66824",
      "x-amz-content-sha256": "STREAMING-AWS4-HMAC-SHA256-PAYLOAD",
      authorization: `AWS4-HMAC-SHA256 ${credential},SignedHeaders=content-encoding;content-length;host;x-amz-content-sha256;x-amz-date;x-amz-decoded-content-length;x-amz-storage-class,Signature=4f232c4386841ef735655705268965c44a0e4690baa4adea153f7db9fa80a0a9`,
    },
  };
  const chunkSignatures: [string, string, string] = [
    "ad80c730a21e5b8d04586a2213dd63b9a0e99e0e2307b0ade35a65485a288648",
    "0055627c9e194cb4542bae2aa5492e3c1575bbb81b612b7d234b86a503ef5497",
    "b6c6ea8a5354eaf15b3cb7646744f4275b71ea724fed81ceb9323e279d449df9",
  ];

  it("decodes signed chunks and verifies their signature chain", async () => {
    const body = `${signedChunks(chunkSignatures)}\r\n`;
    expect(body.length).toBe(66824);
    const answer = await send(fake.url, { ...example1, body });
    expect(answer.status, answer.body).toBe(200);
    expect(fake.object("examplebucket", "chunkObject.txt")).toMatchObject({
      size: 66560,
      sha256: createHash("sha256")
        .update(a64k + a1k)
        .digest("hex"),
    });
  });

  it("refuses a body whose bytes no longer match their chunk signature", async () => {
    const body = `${signedChunks(chunkSignatures)}\r\n`.replace("a\r\n400;", "b\r\n400;");
    const answer = await send(fake.url, { ...example1, body });
    expect(answer.status).toBe(403);
    expect(answer.body).toContain("<Code>SignatureDoesNotMatch</Code>");
    expect(answer.body).toContain("chunk signature");
  });

  it("verifies a signed trailer and the CRC32C it carries", async () => {
    const trailerExample = {
      method: "PUT",
      path: "/examplebucket/chunkObject.txt",
      headers: {
        ...common,
        "x-amz-content-sha256": "STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER",
        "x-amz-trailer": "x-amz-checksum-crc32c",
        authorization: `AWS4-HMAC-SHA256 ${credential},SignedHeaders=content-encoding;host;x-amz-content-sha256;x-amz-date;x-amz-decoded-content-length;x-amz-storage-class;x-amz-trailer,Signature=106e2a8a18243abcf37539882f36619c00e2dfc72633413f02d3b74544bfeb8e`,
      },
    };
    const chunks = signedChunks([
      "b474d8862b1487a5145d686f57f013e54db672cee1c953b3010fb58501ef5aa2",
      "1c1344b170168f8e65b41376b44b20fe354e373826ccbbe2c1d40a8cae51e5c7",
      "2ca2aba2005185cf7159c6277faf83795951dd77a3a99e6e65d5c9f85863f992",
    ]);
    const trailerSignature = "d81f82fc3505edab99d459891051a732e8730629a2e4a59689829ca17fe2e435";
    const good = `${chunks}x-amz-checksum-crc32c:sOO8/Q==\r\nx-amz-trailer-signature:${trailerSignature}\r\n\r\n`;
    const answer = await send(fake.url, { ...trailerExample, body: good });
    expect(answer.status, answer.body).toBe(200);
    expect(answer.headers["x-amz-checksum-crc32c"]).toBe("sOO8/Q==");

    const changed = await send(fake.url, { ...trailerExample, body: good.replace("sOO8/Q==", "AAAAAA==") });
    expect(changed.status).toBe(403);
    expect(changed.body).toContain("<Code>SignatureDoesNotMatch</Code>");
  });

  it("refuses a signature older than fifteen minutes", async () => {
    const late = await startFakeS3({
      accessKeyId: "AKIAIOSFODNN7EXAMPLE",
      secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
      buckets: ["examplebucket"],
      now: () => new Date("2013-05-24T00:16:00Z"),
    });
    try {
      const answer = await send(late.url, { ...example1, body: `${signedChunks(chunkSignatures)}\r\n` });
      expect(answer.status).toBe(403);
      expect(answer.body).toContain("<Code>RequestTimeTooSkewed</Code>");
    } finally {
      await late.close();
    }
  });
});

describe("the fake with the AWS SDK", () => {
  let fake: FakeS3;
  let client: S3Client;
  beforeAll(async () => {
    fake = await startFakeS3({ buckets: ["files"] });
    client = clientOf(fake);
  });
  afterAll(() => fake.close());

  it("takes a streamed PutObject as aws-chunked with a trailing CRC32", async () => {
    const parts = [Buffer.from("hello "), Buffer.from("streamed "), Buffer.from("world")];
    await client.send(
      new PutObjectCommand({
        Bucket: "files",
        Key: "dir/streamed file.txt",
        Body: Readable.from(parts),
        ContentLength: 20,
        ContentType: "text/plain",
      }),
    );
    expect(fake.requests.at(-1)).toMatchObject({
      operation: "PutObject",
      status: 200,
      contentSha256: "STREAMING-UNSIGNED-PAYLOAD-TRAILER",
    });
    expect(fake.object("files", "dir/streamed file.txt")).toMatchObject({
      size: 20,
      contentType: "text/plain",
      sha256: createHash("sha256").update("hello streamed world").digest("hex"),
    });
    const got = await client.send(new GetObjectCommand({ Bucket: "files", Key: "dir/streamed file.txt" }));
    expect(await got.Body?.transformToString()).toBe("hello streamed world");
  });

  it("answers ranges with 206 and Content-Range, and 416 past the end", async () => {
    await client.send(new PutObjectCommand({ Bucket: "files", Key: "digits", Body: "0123456789" }));
    const middle = await client.send(
      new GetObjectCommand({ Bucket: "files", Key: "digits", Range: "bytes=2-5" }),
    );
    expect(middle.$metadata.httpStatusCode).toBe(206);
    expect(middle.ContentRange).toBe("bytes 2-5/10");
    expect(await middle.Body?.transformToString()).toBe("2345");
    const tail = await client.send(
      new GetObjectCommand({ Bucket: "files", Key: "digits", Range: "bytes=-3" }),
    );
    expect(await tail.Body?.transformToString()).toBe("789");
    const past = client.send(new GetObjectCommand({ Bucket: "files", Key: "digits", Range: "bytes=10-" }));
    await expect(past).rejects.toMatchObject({ name: "InvalidRange", $metadata: { httpStatusCode: 416 } });
    const head = await client.send(new HeadObjectCommand({ Bucket: "files", Key: "digits" }));
    expect(head.ContentLength).toBe(10);
  });

  it("answers S3's XML errors: NoSuchKey, NoSuchBucket, InvalidAccessKeyId, SignatureDoesNotMatch", async () => {
    await expect(client.send(new GetObjectCommand({ Bucket: "files", Key: "absent" }))).rejects.toMatchObject(
      {
        name: "NoSuchKey",
        $metadata: { httpStatusCode: 404 },
      },
    );
    await expect(client.send(new GetObjectCommand({ Bucket: "nobucket", Key: "x" }))).rejects.toMatchObject({
      name: "NoSuchBucket",
    });
    const stranger = clientOf(fake, { accessKeyId: "AKUNKNOWN", secretAccessKey: fake.secretAccessKey });
    const refused = await stranger
      .send(new PutObjectCommand({ Bucket: "files", Key: "x", Body: "x" }))
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(S3ServiceException);
    expect(refused).toMatchObject({ name: "InvalidAccessKeyId", $metadata: { httpStatusCode: 403 } });
    const wrongSecret = clientOf(fake, { accessKeyId: fake.accessKeyId, secretAccessKey: "not-the-secret" });
    await expect(
      wrongSecret.send(new PutObjectCommand({ Bucket: "files", Key: "x", Body: "x" })),
    ).rejects.toMatchObject({ name: "SignatureDoesNotMatch" });
    expect(fake.object("files", "x")).toBeUndefined();
    const raw = await send(fake.url, { method: "GET", path: "/files/absent", headers: {} });
    expect(raw.status).toBe(403);
    expect(raw.body).toMatch(/^<\?xml[\s\S]*<Error><Code>AccessDenied<\/Code>/);
  });

  it("rejects a payload whose checksum does not match", async () => {
    const put = client.send(
      new PutObjectCommand({ Bucket: "files", Key: "crc", Body: "payload", ChecksumCRC32: "AAAAAA==" }),
    );
    await expect(put).rejects.toMatchObject({ name: "BadDigest", $metadata: { httpStatusCode: 400 } });
    expect(fake.object("files", "crc")).toBeUndefined();
  });

  it("assembles multipart uploads and enforces S3's 5 MiB minimum for all but the last part", async () => {
    const { UploadId } = await client.send(
      new CreateMultipartUploadCommand({ Bucket: "files", Key: "multi" }),
    );
    const first = Buffer.alloc(5 * 1024 * 1024, 1);
    const one = await client.send(
      new UploadPartCommand({ Bucket: "files", Key: "multi", UploadId, PartNumber: 1, Body: first }),
    );
    const two = await client.send(
      new UploadPartCommand({ Bucket: "files", Key: "multi", UploadId, PartNumber: 2, Body: "tail" }),
    );
    expect(fake.pendingUploads("files")).toBe(1);
    await client.send(
      new CompleteMultipartUploadCommand({
        Bucket: "files",
        Key: "multi",
        UploadId,
        MultipartUpload: {
          Parts: [
            { PartNumber: 1, ETag: one.ETag, ChecksumCRC32: one.ChecksumCRC32 },
            { PartNumber: 2, ETag: two.ETag, ChecksumCRC32: two.ChecksumCRC32 },
          ],
        },
      }),
    );
    expect(fake.pendingUploads("files")).toBe(0);
    expect(fake.object("files", "multi")).toMatchObject({
      size: first.length + 4,
      partCount: 2,
      sha256: createHash("sha256").update(first).update("tail").digest("hex"),
    });

    const small = await client.send(new CreateMultipartUploadCommand({ Bucket: "files", Key: "small" }));
    const parts = [];
    for (const PartNumber of [1, 2]) {
      const part = await client.send(
        new UploadPartCommand({
          Bucket: "files",
          Key: "small",
          UploadId: small.UploadId,
          PartNumber,
          Body: "tiny",
        }),
      );
      parts.push({ PartNumber, ETag: part.ETag });
    }
    await expect(
      client.send(
        new CompleteMultipartUploadCommand({
          Bucket: "files",
          Key: "small",
          UploadId: small.UploadId,
          MultipartUpload: { Parts: parts },
        }),
      ),
    ).rejects.toMatchObject({ name: "EntityTooSmall" });
  });
});
