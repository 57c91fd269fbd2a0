import { existsSync } from "node:fs";
import { join } from "node:path";
import {
  FAKE_REPLICATE_MODELS,
  type FakeReplicate,
  type FakeS3,
  startFakeReplicate,
  startFakeS3,
  TINY_MP4,
  TINY_PNG,
} from "@app/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestBuilder, type TestBuilder } from "../../test/harness.ts";
import { createBase, uploadOk, waitForDocument } from "../../test/knowledge-support.ts";

const BUCKET = "builder-e2e";
const VIDEO = `${FAKE_REPLICATE_MODELS.video.owner}/${FAKE_REPLICATE_MODELS.video.name}`;
const IMAGE = `${FAKE_REPLICATE_MODELS.image.owner}/${FAKE_REPLICATE_MODELS.image.name}`;
// Three 5 MiB parts: large enough that the copy is a multipart upload.
const VIDEO_BYTES = 12 * 1024 * 1024;

let s3: FakeS3;
let replicate: FakeReplicate;
let builder: TestBuilder;
let cookie: string;

beforeAll(async () => {
  s3 = await startFakeS3({ buckets: [BUCKET] });
  replicate = await startFakeReplicate({ apiToken: "r8_test", videoBytes: VIDEO_BYTES });
  builder = await startTestBuilder({
    env: {
      REPLICATE_API_TOKEN: "r8_test",
      REPLICATE_BASE_URL: replicate.baseUrl,
      ALLOW_PRIVATE_URLS: "1",
      S3_BUCKET: BUCKET,
      S3_ENDPOINT: s3.url,
      S3_REGION: s3.region,
      S3_ACCESS_KEY_ID: s3.accessKeyId,
      S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
      S3_FORCE_PATH_STYLE: "1",
      S3_PREFIX: "e2e/",
    },
  });
  cookie = (await builder.signUp()).cookie;
});

afterAll(async () => {
  await builder?.stop();
  await replicate?.close();
  await s3?.close();
});

const localFiles = () => join(builder.deps.config.dataDir, "builder", "files");

/** The bytes of the fake's large video: the MP4 header, an mdat box header, then zeros. */
function videoBytes(start: number, end: number): Buffer {
  const header = TINY_MP4.subarray(0, TINY_MP4.length - 8);
  const mdat = Buffer.alloc(8);
  mdat.writeUInt32BE(VIDEO_BYTES - header.length, 0);
  mdat.write("mdat", 4, "latin1");
  const head = Buffer.concat([header, mdat]);
  const out = Buffer.alloc(end - start + 1);
  if (start < head.length) head.copy(out, 0, start, Math.min(head.length, end + 1));
  return out;
}

describe("files in an S3-compatible bucket", () => {
  it("copies a generated video into the bucket and serves byte ranges of it at /api/files/{id}", async () => {
    const response = await builder.request("/api/replicate/generate/video", {
      method: "POST",
      cookie,
      json: { model: VIDEO, input: { prompt: "waves" }, wait: 30 },
    });
    expect(response.status).toBe(201);
    const generation = (await response.json()) as {
      id: string;
      status: string;
      outputs: { file_id: string; url: string; size_bytes: number; content_type: string }[];
    };
    expect(generation.status).toBe("succeeded");
    const [output] = generation.outputs;
    expect(output).toMatchObject({ size_bytes: VIDEO_BYTES, content_type: "video/mp4" });

    const keys = s3.keys(BUCKET).filter((key) => key.startsWith("e2e/generations/"));
    expect(keys).toHaveLength(1);
    expect(s3.object(BUCKET, keys[0] ?? "")).toMatchObject({ size: VIDEO_BYTES, partCount: 3 });
    expect(existsSync(localFiles())).toBe(false);

    const path = new URL(output?.url ?? "").pathname;
    expect(path).toBe(`/api/files/${output?.file_id}`);
    const head = await builder.request(path, { cookie, headers: { range: "bytes=0-99" } });
    expect(head.status).toBe(206);
    expect(head.headers.get("content-range")).toBe(`bytes 0-99/${VIDEO_BYTES}`);
    expect(Buffer.from(await head.arrayBuffer()).equals(videoBytes(0, 99))).toBe(true);

    const seek = 7 * 1024 * 1024 + 5;
    const middle = await builder.request(path, {
      cookie,
      headers: { range: `bytes=${seek}-${seek + 4095}` },
    });
    expect(middle.status).toBe(206);
    expect(middle.headers.get("content-length")).toBe("4096");
    expect(Buffer.from(await middle.arrayBuffer()).equals(videoBytes(seek, seek + 4095))).toBe(true);
    const ranged = s3.requests.filter((request) => request.operation === "GetObject").at(-1);
    expect(ranged).toMatchObject({ key: keys[0], status: 206 });

    const stranger = await builder.signUp();
    expect((await builder.request(path, { cookie: stranger.cookie })).status).toBe(404);
  });

  it("serves a whole small output, read back with the checksum the store keeps", async () => {
    const response = await builder.request("/api/replicate/generate/image", {
      method: "POST",
      cookie,
      json: { model: IMAGE, input: { prompt: "a fox" }, wait: 30 },
    });
    expect(response.status).toBe(201);
    const generation = (await response.json()) as { outputs: { url: string }[] };
    const whole = await builder.request(new URL(generation.outputs[0]?.url ?? "").pathname, { cookie });
    expect(whole.status).toBe(200);
    expect(whole.headers.get("content-type")).toBe("image/png");
    expect(Buffer.from(await whole.arrayBuffer()).equals(TINY_PNG)).toBe(true);
    const stored = s3.requests.filter((request) => request.operation === "PutObject").at(-1);
    expect(stored).toMatchObject({ status: 200 });
    expect(s3.object(BUCKET, stored?.key ?? "")).toMatchObject({ size: TINY_PNG.length, partCount: 0 });
    const read = s3.requests.filter((request) => request.operation === "GetObject").at(-1);
    expect(read).toMatchObject({ key: stored?.key, status: 200 });
  });

  it("keeps knowledge-base uploads in the bucket, reads them back to ingest, and deletes them", async () => {
    const base = await createBase(builder, cookie);
    const document = await uploadOk(builder, cookie, {
      knowledgeBaseId: base,
      name: "otters.txt",
      bytes: "Sea otters hold hands while they sleep so they do not drift apart.",
    });
    const done = await waitForDocument(builder, cookie, document.id);
    expect(done.status).toBe("ready");
    const key = s3.keys(BUCKET).find((candidate) => candidate.endsWith(`/${document.id}`));
    expect(key).toMatch(/^e2e\/knowledge\//);
    expect(s3.object(BUCKET, key ?? "")?.size).toBe(done.size_bytes);
    expect(existsSync(localFiles())).toBe(false);

    const deleted = await builder.request(`/api/rag/documents/${document.id}`, { method: "DELETE", cookie });
    expect(deleted.status).toBe(204);
    expect(s3.object(BUCKET, key ?? "")).toBeUndefined();
  });
});
