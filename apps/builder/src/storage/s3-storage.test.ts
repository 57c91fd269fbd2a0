import { createHash } from "node:crypto";
import { Readable } from "node:stream";
import { buffer } from "node:stream/consumers";
import { ConfigError } from "@app/core";
import { type FakeS3, startFakeS3 } from "@app/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStorage } from "./open-storage.ts";
import { type S3Settings, s3Storage } from "./s3-storage.ts";
import { type Storage, StorageNotFoundError } from "./storage.ts";

const BUCKET = "builder-files";
let fake: FakeS3;
let settings: S3Settings;
let storage: Storage;

beforeAll(async () => {
  fake = await startFakeS3({ buckets: [BUCKET] });
  settings = {
    bucket: BUCKET,
    region: fake.region,
    endpoint: fake.url,
    forcePathStyle: true,
    prefix: "tenant-a",
    credentials: { accessKeyId: fake.accessKeyId, secretAccessKey: fake.secretAccessKey },
  };
  storage = s3Storage(settings);
});
afterAll(() => fake.close());

const text = async (stream: Readable) => (await buffer(stream)).toString();

/**
 * `total` bytes that differ from block to block (so a misplaced part would change the hash), made
 * as they are read. `lag` records the most bytes ever handed out but not yet received by the store:
 * what the uploader holds in memory.
 */
function generated(total: number, blockBytes = 64 * 1024) {
  const state = { produced: 0, lag: 0 };
  const receivedBefore = fake.receivedBytes;
  const hash = createHash("sha256");
  async function* blocks() {
    for (let index = 0; state.produced < total; index++) {
      const block = blockAt(index, Math.min(blockBytes, total - state.produced), blockBytes);
      state.lag = Math.max(state.lag, state.produced - (fake.receivedBytes - receivedBefore));
      state.produced += block.length;
      hash.update(block);
      yield block;
    }
  }
  return { stream: Readable.from(blocks()), state, sha256: () => hash.digest("hex") };
}

function blockAt(index: number, length: number, blockBytes = 64 * 1024): Buffer {
  const block = Buffer.alloc(length);
  for (let i = 0; i < length; i += 4) block.writeUInt32BE((index * blockBytes + i) >>> 0, i);
  return block;
}

describe("s3Storage", () => {
  it("puts, gets, ranges and deletes, under the prefix", async () => {
    const { sizeBytes } = await storage.put(
      "knowledge/ws_1/doc_1",
      Readable.from([Buffer.from("hello, bucket")]),
    );
    expect(sizeBytes).toBe(13);
    expect(fake.keys(BUCKET)).toContain("tenant-a/knowledge/ws_1/doc_1");
    expect(fake.object(BUCKET, "tenant-a/knowledge/ws_1/doc_1")).toMatchObject({
      size: 13,
      sha256: createHash("sha256").update("hello, bucket").digest("hex"),
    });

    expect(await text(await storage.get("knowledge/ws_1/doc_1"))).toBe("hello, bucket");
    expect(await text(await storage.get("knowledge/ws_1/doc_1", { start: 7, end: 12 }))).toBe("bucket");
    expect(await text(await storage.get("knowledge/ws_1/doc_1", { start: 5 }))).toBe(", bucket");
    const ranged = fake.requests.filter((request) => request.operation === "GetObject").at(-1);
    expect(ranged?.status).toBe(206);

    await storage.put("knowledge/ws_1/doc_1", Readable.from([Buffer.from("replaced")]));
    expect(await text(await storage.get("knowledge/ws_1/doc_1"))).toBe("replaced");

    await storage.delete("knowledge/ws_1/doc_1");
    expect(fake.keys(BUCKET)).not.toContain("tenant-a/knowledge/ws_1/doc_1");
    await expect(storage.get("knowledge/ws_1/doc_1")).rejects.toBeInstanceOf(StorageNotFoundError);
    await expect(storage.delete("knowledge/ws_1/doc_1")).resolves.toBeUndefined();
  });

  it("stores an empty body as an empty object", async () => {
    expect(await storage.put("empty", Readable.from([]))).toEqual({ sizeBytes: 0 });
    expect(fake.object(BUCKET, "tenant-a/empty")?.size).toBe(0);
    expect((await buffer(await storage.get("empty"))).length).toBe(0);
  });

  it("refuses keys that are not plain relative paths", async () => {
    await expect(storage.put("../escape", Readable.from([Buffer.from("x")]))).rejects.toThrow(
      /invalid storage key/,
    );
    await expect(storage.get("a//b")).rejects.toThrow(/invalid storage key/);
  });

  it("streams a 64 MiB body as a multipart upload without holding it in memory", async () => {
    const total = 64 * 1024 * 1024;
    const body = generated(total);
    const { sizeBytes } = await storage.put("generations/ws_1/gen_1/0", body.stream);
    expect(sizeBytes).toBe(total);
    const stored = fake.object(BUCKET, "tenant-a/generations/ws_1/gen_1/0");
    expect(stored).toMatchObject({ size: total, sha256: body.sha256(), partCount: 13 });
    // Two 5 MiB parts in flight and one filling, plus socket buffers; the whole body would be 64 MiB.
    expect(body.state.lag).toBeLessThan(24 * 1024 * 1024);

    const start = 50 * 1024 * 1024 + 3;
    const range = await buffer(await storage.get("generations/ws_1/gen_1/0", { start, end: start + 99 }));
    const block = Math.floor(start / (64 * 1024));
    const expected = blockAt(block, 64 * 1024).subarray(start % (64 * 1024), (start % (64 * 1024)) + 100);
    expect(range.equals(expected)).toBe(true);
  });

  it("aborts the multipart upload when the body fails midway, leaving nothing behind", async () => {
    const failure = new Error("the download broke");
    async function* breaking() {
      for (let index = 0; index < 200; index++) yield blockAt(index, 64 * 1024);
      throw failure;
    }
    await expect(storage.put("generations/ws_1/gen_2/0", Readable.from(breaking()))).rejects.toBe(failure);
    const operations = fake.requests.map((request) => request.operation);
    expect(operations).toContain("AbortMultipartUpload");
    expect(fake.pendingUploads(BUCKET)).toBe(0);
    expect(fake.object(BUCKET, "tenant-a/generations/ws_1/gen_2/0")).toBeUndefined();
  });

  it("answers the store's errors as they are when the credentials are wrong", async () => {
    const stranger = s3Storage({
      ...settings,
      credentials: { accessKeyId: "AKNOBODY", secretAccessKey: "x" },
    });
    await expect(stranger.put("x", Readable.from([Buffer.from("x")]))).rejects.toMatchObject({
      name: "InvalidAccessKeyId",
    });
    await expect(stranger.get("x")).rejects.toMatchObject({ name: "InvalidAccessKeyId" });
  });
});

describe("openStorage", () => {
  it("checks the bucket at start and names the variable to fix", async () => {
    await expect(openStorage({ kind: "s3", ...settings })).resolves.toBeDefined();
    const cases: [Partial<S3Settings>, RegExp][] = [
      [{ bucket: "no-such-bucket" }, /S3_BUCKET: the bucket "no-such-bucket" does not exist/],
      [
        { credentials: { accessKeyId: "AKNOBODY", secretAccessKey: fake.secretAccessKey } },
        /S3_ACCESS_KEY_ID: the store does not know this access key id/,
      ],
      [
        { credentials: { accessKeyId: fake.accessKeyId, secretAccessKey: "wrong-secret" } },
        /S3_SECRET_ACCESS_KEY: the store rejected the request signature/,
      ],
      [{ region: "eu-west-1" }, /S3_REGION: the store rejected the region "eu-west-1"/],
    ];
    for (const [change, message] of cases) {
      const error = await openStorage({ kind: "s3", ...settings, ...change }).catch(
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as Error).message).toMatch(message);
      expect((error as Error).message).not.toContain(fake.secretAccessKey);
    }
  });

  it("names S3_ENDPOINT when nothing answers there", async () => {
    const closed = await startFakeS3({ buckets: [BUCKET] });
    await closed.close();
    const error = await openStorage({ kind: "s3", ...settings, endpoint: closed.url }).catch(
      (caught: unknown) => caught,
    );
    expect((error as Error).message).toMatch(/S3_ENDPOINT: cannot reach the store/);
  });
});
