import { existsSync } from "node:fs";
import { join } from "node:path";
import { manualClock } from "@app/core";
import {
  FAKE_REPLICATE_MODELS,
  type FakeReplicate,
  signWebhook,
  startFakeReplicate,
  TINY_MP4,
  TINY_PNG,
} from "@app/testing";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startTestBuilder, type TestBuilder } from "../../test/harness.ts";
import { storedFiles } from "../files/schema.ts";
import { replicateWebhookEvents } from "./schema.ts";

interface GenerationJson {
  id: string;
  kind: string;
  model: string;
  status: string;
  input: Record<string, unknown>;
  outputs: { file_id: string; url: string; content_type: string; size_bytes: number }[];
  error: string | null;
  metrics: { predict_time?: number; output_count?: number; output_bytes?: number };
  prediction_id: string | null;
  credential_id: string | null;
}

const IMAGE = `${FAKE_REPLICATE_MODELS.image.owner}/${FAKE_REPLICATE_MODELS.image.name}`;
const VIDEO = `${FAKE_REPLICATE_MODELS.video.owner}/${FAKE_REPLICATE_MODELS.video.name}`;
const SERVER_TOKEN = "r8_test";
/** A workspace's own Replicate token: another account of the fake, with its own webhook secret. */
const WORKSPACE_TOKEN = "r8_WorkspaceOwnToken-abcdefghijkl7788";

let fake: FakeReplicate;
let builder: TestBuilder;
let owner: { cookie: string };
let stranger: { cookie: string };
const clock = manualClock(new Date());

beforeAll(async () => {
  fake = await startFakeReplicate({ apiToken: SERVER_TOKEN, otherAccounts: [WORKSPACE_TOKEN] });
  builder = await startTestBuilder({
    clock,
    env: { REPLICATE_API_TOKEN: SERVER_TOKEN, REPLICATE_BASE_URL: fake.baseUrl, ALLOW_PRIVATE_URLS: "1" },
  });
  owner = await builder.signUp();
  stranger = await builder.signUp();
});

afterAll(async () => {
  await builder?.stop();
  await fake?.close();
});

beforeEach(() => {
  fake.outcome = () => "instant";
  clock.set(new Date());
});

async function generate(
  kind: "image" | "video",
  body: Record<string, unknown>,
  cookie = owner.cookie,
): Promise<{ status: number; body: GenerationJson & { error: unknown } }> {
  const response = await builder.request(`/api/replicate/generate/${kind}`, {
    method: "POST",
    json: body,
    cookie,
  });
  return { status: response.status, body: (await response.json()) as GenerationJson & { error: unknown } };
}

async function getGeneration(id: string, cookie = owner.cookie): Promise<GenerationJson> {
  const response = await builder.request(`/api/generations/${id}`, { cookie });
  expect(response.status).toBe(200);
  return (await response.json()) as GenerationJson;
}

async function postWebhook(
  generationId: string,
  delivery: { id: string; timestamp: string; signature: string; body: string },
): Promise<Response> {
  return fetch(`${builder.url}/api/replicate/webhook?generation_id=${generationId}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "webhook-id": delivery.id,
      "webhook-timestamp": delivery.timestamp,
      "webhook-signature": delivery.signature,
    },
    body: delivery.body,
  });
}

function succeededBody(predictionId: string): string {
  return JSON.stringify({
    id: predictionId,
    status: "succeeded",
    output: [`${fake.url}/files/${predictionId}/out-0.png`],
    metrics: { predict_time: 2 },
  });
}

async function fileBytes(url: string, cookie = owner.cookie, range?: string): Promise<Response> {
  return builder.request(new URL(url).pathname, { cookie, ...(range ? { headers: { range } } : {}) });
}

describe("sync generation (Prefer: wait)", () => {
  it("answers 201 succeeded with the outputs already copied into our storage", async () => {
    const { status, body } = await generate("image", {
      model: IMAGE,
      input: { prompt: "a red fox", num_outputs: 2 },
      wait: 30,
    });
    expect(status).toBe(201);
    expect(body).toMatchObject({ kind: "image", model: IMAGE, status: "succeeded", error: null });
    expect(body.outputs).toHaveLength(2);
    expect(body.metrics).toMatchObject({
      predict_time: 1.25,
      output_count: 2,
      output_bytes: 2 * TINY_PNG.length,
    });
    const created = fake.requests.filter(
      (request) => request.route === `POST /v1/models/${IMAGE}/predictions`,
    );
    expect(created.at(-1)?.prefer).toBe("wait=30");

    for (const output of body.outputs) {
      expect(output).toMatchObject({ content_type: "image/png", size_bytes: TINY_PNG.length });
      const response = await fileBytes(output.url);
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe("image/png");
      expect(Buffer.from(await response.arrayBuffer()).equals(TINY_PNG)).toBe(true);
    }
  });

  it("uses the version route for owner/name:version", async () => {
    const seen = fake.requests.length;
    const { status, body } = await generate("image", {
      model: `${IMAGE}:${FAKE_REPLICATE_MODELS.image.version}`,
      input: { prompt: "a fox" },
      wait: 5,
    });
    expect(status).toBe(201);
    expect(body.status).toBe("succeeded");
    const routes = fake.requests.slice(seen).map((request) => request.route);
    expect(routes).toContain(`GET /v1/models/${IMAGE}/versions/${FAKE_REPLICATE_MODELS.image.version}`);
    expect(routes).toContain("POST /v1/predictions");
  });

  it("records Replicate's error text when the prediction fails", async () => {
    fake.outcome = () => ({ error: "CUDA out of memory: tried to allocate 2.00 GiB" });
    const { status, body } = await generate("image", {
      model: IMAGE,
      input: { prompt: "too big" },
      wait: 10,
    });
    expect(status).toBe(201);
    expect(body.status).toBe("failed");
    expect(body.error).toBe("CUDA out of memory: tried to allocate 2.00 GiB");
    expect(body.outputs).toEqual([]);
  });
});

describe("input validation", () => {
  it("answers 422 naming the field, and creates no prediction", async () => {
    const before = fake.predictions.size;
    const tooMany = await generate("image", { model: IMAGE, input: { prompt: "x", num_outputs: 9 } });
    expect(tooMany.status).toBe(422);
    expect(tooMany.body.error).toMatchObject({ code: "invalid_input", param: "input.num_outputs" });

    const missing = await generate("image", { model: IMAGE, input: { num_outputs: 1 } });
    expect(missing.status).toBe(422);
    expect(missing.body.error).toMatchObject({ param: "input.prompt" });

    const badEnum = await generate("image", { model: IMAGE, input: { prompt: "x", aspect_ratio: "4:3" } });
    expect(badEnum.status).toBe(422);
    expect(JSON.stringify(badEnum.body.error)).toContain("16:9");

    const wrongType = await generate("image", { model: IMAGE, input: { prompt: 42 } });
    expect(wrongType.status).toBe(422);

    const unknownModel = await generate("image", { model: "nobody/nothing", input: { prompt: "x" } });
    expect(unknownModel.status, JSON.stringify(unknownModel.body)).toBe(422);
    expect(unknownModel.body.error).toMatchObject({ code: "model_not_found", param: "model" });

    const badRef = await generate("image", { model: "not a model", input: { prompt: "x" } });
    expect(badRef.status).toBe(422);
    expect(fake.predictions.size).toBe(before);
  });
});

describe("async generation", () => {
  it("answers 201 starting at once and completes by Replicate's signed webhook", async () => {
    fake.outcome = () => "manual";
    const { status, body } = await generate("video", { model: VIDEO, input: { prompt: "waves" } });
    expect(status).toBe(201);
    expect(body.status).toBe("starting");
    expect(body.prediction_id).toBeTruthy();
    const prediction = fake.predictions.get(body.prediction_id ?? "");
    expect(prediction?.webhook).toBe(`${builder.url}/api/replicate/webhook?generation_id=${body.id}`);
    expect(prediction?.webhookEventsFilter).toEqual(["completed"]);

    await fake.complete(body.prediction_id ?? "");
    expect(fake.webhooks.at(-1)?.status).toBe(200);
    const done = await getGeneration(body.id);
    expect(done.status).toBe("succeeded");
    expect(done.outputs[0]?.content_type).toBe("video/mp4");

    const url = done.outputs[0]?.url ?? "";
    const whole = await fileBytes(url);
    expect(whole.headers.get("accept-ranges")).toBe("bytes");
    expect(Buffer.from(await whole.arrayBuffer()).equals(TINY_MP4)).toBe(true);
    const part = await fileBytes(url, owner.cookie, "bytes=4-11");
    expect(part.status).toBe(206);
    expect(part.headers.get("content-range")).toBe(`bytes 4-11/${TINY_MP4.length}`);
    expect(Buffer.from(await part.arrayBuffer()).equals(TINY_MP4.subarray(4, 12))).toBe(true);
    const tail = await fileBytes(url, owner.cookie, "bytes=-8");
    expect(Buffer.from(await tail.arrayBuffer()).equals(TINY_MP4.subarray(TINY_MP4.length - 8))).toBe(true);
    const past = await fileBytes(url, owner.cookie, `bytes=${TINY_MP4.length + 10}-`);
    expect(past.status).toBe(416);
    expect(past.headers.get("content-range")).toBe(`bytes */${TINY_MP4.length}`);
  });

  it("cancels an unfinished generation on Replicate; a second cancel is 409", async () => {
    fake.outcome = () => "manual";
    const { body } = await generate("image", { model: IMAGE, input: { prompt: "slow" } });
    const cancel = await builder.request(`/api/generations/${body.id}/cancel`, {
      method: "POST",
      cookie: owner.cookie,
    });
    expect(cancel.status).toBe(200);
    expect(((await cancel.json()) as GenerationJson).status).toBe("canceled");
    expect(fake.predictions.get(body.prediction_id ?? "")?.status).toBe("canceled");
    const again = await builder.request(`/api/generations/${body.id}/cancel`, {
      method: "POST",
      cookie: owner.cookie,
    });
    expect(again.status).toBe(409);
  });
});

describe("webhook verification", () => {
  it("rejects a wrong signature, a tampered body, a stale timestamp and missing headers, changing nothing", async () => {
    fake.outcome = () => "manual";
    const { body: generation } = await generate("image", { model: IMAGE, input: { prompt: "guarded" } });
    const predictionId = generation.prediction_id ?? "";
    const body = succeededBody(predictionId);
    const now = String(Math.floor(clock.now().getTime() / 1000));

    const wrongSecret = signWebhook(
      `whsec_${Buffer.from("not the secret").toString("base64")}`,
      "msg_a",
      now,
      body,
    );
    expect(
      (await postWebhook(generation.id, { id: "msg_a", timestamp: now, signature: wrongSecret, body }))
        .status,
    ).toBe(401);

    const signed = signWebhook(fake.webhookSecret, "msg_b", now, body);
    const tampered = body.replace("succeeded", "failed");
    expect(
      (await postWebhook(generation.id, { id: "msg_b", timestamp: now, signature: signed, body: tampered }))
        .status,
    ).toBe(401);

    // Signed correctly, but delivered more than 5 minutes after its timestamp.
    clock.advance(301_000);
    const late = await postWebhook(generation.id, { id: "msg_b", timestamp: now, signature: signed, body });
    expect(late.status).toBe(401);
    expect(((await late.json()) as { error: { code: string } }).error.code).toBe("webhook_signature_invalid");
    clock.set(new Date(Number(now) * 1000));

    const unsigned = await fetch(`${builder.url}/api/replicate/webhook?generation_id=${generation.id}`, {
      method: "POST",
      body,
    });
    expect(unsigned.status).toBe(401);
    expect((await getGeneration(generation.id)).status).toBe("starting");

    // The same delivery within the tolerance is accepted once.
    expect(
      (await postWebhook(generation.id, { id: "msg_b", timestamp: now, signature: signed, body })).status,
    ).toBe(200);
    expect((await getGeneration(generation.id)).status).toBe("succeeded");
  });

  it("answers 404 to a signed webhook for a generation not recorded yet, without consuming its id", async () => {
    const body = succeededBody("pred_unknown");
    const now = String(Math.floor(clock.now().getTime() / 1000));
    const signature = signWebhook(fake.webhookSecret, "msg_early", now, body);
    const early = await postWebhook("gen_notrecordedyet", {
      id: "msg_early",
      timestamp: now,
      signature,
      body,
    });
    expect(early.status).toBe(404);
    const seen = await builder.deps.db
      .select()
      .from(replicateWebhookEvents)
      .where(eq(replicateWebhookEvents.id, "msg_early"));
    expect(seen).toEqual([]);
  });

  it("applies a replayed webhook id once: the replay changes nothing", async () => {
    fake.outcome = () => "manual";
    const { body: generation } = await generate("image", { model: IMAGE, input: { prompt: "once" } });
    await fake.complete(generation.prediction_id ?? "");
    const delivery = fake.webhooks.at(-1);
    if (!delivery) throw new Error("the fake sent no webhook");
    const first = await getGeneration(generation.id);
    expect(first.status).toBe("succeeded");
    const filesBefore = await builder.deps.db
      .select()
      .from(storedFiles)
      .where(eq(storedFiles.generationId, generation.id));

    const replay = await postWebhook(generation.id, delivery);
    expect(replay.status).toBe(200);
    expect(await replay.json()).toEqual({ received: true, outcome: "duplicate" });
    // A genuine delivery id reused with a failure body (as if replayed with another payload) is refused too.
    const failure = JSON.stringify({ id: generation.prediction_id, status: "failed", error: "replayed" });
    const forged = await postWebhook(generation.id, { ...delivery, body: failure });
    expect(forged.status).toBe(401);

    const after = await getGeneration(generation.id);
    expect(after).toEqual(first);
    const filesAfter = await builder.deps.db
      .select()
      .from(storedFiles)
      .where(eq(storedFiles.generationId, generation.id));
    expect(filesAfter).toEqual(filesBefore);
  });
});

describe("tenancy, lists and deletion", () => {
  it("hides another user's generation and file (404), and lists only the caller's", async () => {
    const { body } = await generate("image", { model: IMAGE, input: { prompt: "mine" }, wait: 10 });
    const fileUrl = body.outputs[0]?.url ?? "";
    expect((await builder.request(`/api/generations/${body.id}`, { cookie: stranger.cookie })).status).toBe(
      404,
    );
    expect((await fileBytes(fileUrl, stranger.cookie)).status).toBe(404);
    const cancel = await builder.request(`/api/generations/${body.id}/cancel`, {
      method: "POST",
      cookie: stranger.cookie,
    });
    expect(cancel.status).toBe(404);
    const remove = await builder.request(`/api/generations/${body.id}`, {
      method: "DELETE",
      cookie: stranger.cookie,
    });
    expect(remove.status).toBe(404);
    const list = await builder.request("/api/generations", { cookie: stranger.cookie });
    expect(((await list.json()) as { data: unknown[] }).data).toEqual([]);
    expect((await fileBytes(fileUrl)).status).toBe(200);
    expect((await fetch(`${builder.url}${new URL(fileUrl).pathname}`)).status).toBe(401);
  });

  it("filters the list and deletes a generation with its stored files", async () => {
    const { body: video } = await generate("video", { model: VIDEO, input: { prompt: "a wave" }, wait: 10 });
    const videos = await builder.request("/api/generations?kind=video&status=succeeded&limit=100", {
      cookie: owner.cookie,
    });
    const page = (await videos.json()) as { data: GenerationJson[]; has_more: boolean };
    expect(page.data.length).toBeGreaterThan(0);
    expect(page.data.every((item) => item.kind === "video" && item.status === "succeeded")).toBe(true);
    expect(page.data.map((item) => item.id)).toContain(video.id);
    const failed = await builder.request("/api/generations?status=failed", { cookie: owner.cookie });
    expect(
      ((await failed.json()) as { data: GenerationJson[] }).data.every((item) => item.status === "failed"),
    ).toBe(true);

    const [file] = await builder.deps.db
      .select()
      .from(storedFiles)
      .where(eq(storedFiles.generationId, video.id));
    if (!file) throw new Error("no stored file");
    const path = join(builder.deps.config.dataDir, "builder", "files", ...file.storageKey.split("/"));
    expect(existsSync(path)).toBe(true);
    const remove = await builder.request(`/api/generations/${video.id}`, {
      method: "DELETE",
      cookie: owner.cookie,
    });
    expect(remove.status).toBe(204);
    expect(existsSync(path)).toBe(false);
    expect((await fileBytes(video.outputs[0]?.url ?? "")).status).toBe(404);
    expect((await builder.request(`/api/generations/${video.id}`, { cookie: owner.cookie })).status).toBe(
      404,
    );
  });
});

describe("models", () => {
  it("lists a collection per type and searches, caching the answers", async () => {
    const videos = await builder.request("/api/replicate/models?type=video", { cookie: owner.cookie });
    expect(await videos.json()).toMatchObject({ source: "replicate", data: [{ id: VIDEO, kind: "video" }] });
    const search = await builder.request("/api/replicate/models?type=image&query=fake-image", {
      cookie: owner.cookie,
    });
    expect(await search.json()).toMatchObject({ source: "replicate", data: [{ id: IMAGE }] });
    const count = fake.requests.length;
    await builder.request("/api/replicate/models?type=video", { cookie: owner.cookie });
    expect(fake.requests.length).toBe(count);
    expect(fake.requests.some((request) => request.route === "QUERY /v1/models")).toBe(true);
  });

  it("describes a model's inputs in its order, with enums resolved, for the studio's form", async () => {
    const response = await builder.request(`/api/replicate/models/${IMAGE}`, { cookie: owner.cookie });
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      model: string;
      inputs: { name: string; type: string; enum: unknown[] | null; is_required: boolean }[];
    };
    expect(body.model).toBe(IMAGE);
    expect(body.inputs.slice(0, 2).map((input) => input.name)).toEqual(["prompt", "num_outputs"]);
    expect(body.inputs.find((input) => input.name === "prompt")).toMatchObject({
      type: "string",
      is_required: true,
    });
    expect(body.inputs.find((input) => input.name === "aspect_ratio")).toMatchObject({
      type: "string",
      enum: ["1:1", "16:9", "9:16"],
      default: "1:1",
      is_required: false,
    });
    expect(body.inputs.find((input) => input.name === "num_outputs")).toMatchObject({
      minimum: 1,
      maximum: 4,
      default: 1,
    });
    const unknown = await builder.request("/api/replicate/models/fake-labs/no-such-model", {
      cookie: owner.cookie,
    });
    expect(unknown.status).toBe(422);
    expect(((await unknown.json()) as { error: { code: string } }).error.code).toBe("model_not_found");
  });
});

describe("a workspace's own Replicate credential", () => {
  let member: { cookie: string };
  let credentialId: string;
  const tokensOf = (route: string, since = 0) =>
    fake.requests
      .slice(since)
      .filter((request) => request.route === route)
      .map((request) => request.token);

  beforeAll(async () => {
    member = await builder.signUp();
    const response = await builder.request("/api/credentials", {
      method: "POST",
      cookie: member.cookie,
      json: { provider: "replicate", api_key: WORKSPACE_TOKEN },
    });
    const text = await response.text();
    expect(response.status, text).toBe(201);
    expect(text).not.toContain(WORKSPACE_TOKEN);
    const created = JSON.parse(text) as { id: string };
    expect(created).toMatchObject({ provider: "replicate", key_hint: "r8_…7788", base_url: null });
    credentialId = created.id;
  });

  it("generates with the workspace's token, while a workspace without one uses the server's", async () => {
    const since = fake.requests.length;
    const mine = await generate(
      "image",
      { model: IMAGE, input: { prompt: "own account" }, wait: 10 },
      member.cookie,
    );
    expect(mine.status).toBe(201);
    expect(mine.body).toMatchObject({ status: "succeeded", credential_id: credentialId });
    expect(JSON.stringify(mine.body)).not.toContain(WORKSPACE_TOKEN);
    expect(fake.predictions.get(mine.body.prediction_id ?? "")?.account).toBe(WORKSPACE_TOKEN);

    const theirs = await generate("image", { model: IMAGE, input: { prompt: "server account" }, wait: 10 });
    expect(theirs.status).toBe(201);
    expect(theirs.body).toMatchObject({ status: "succeeded", credential_id: null });
    expect(fake.predictions.get(theirs.body.prediction_id ?? "")?.account).toBe(SERVER_TOKEN);
    expect(tokensOf(`POST /v1/models/${IMAGE}/predictions`, since)).toEqual([WORKSPACE_TOKEN, SERVER_TOKEN]);
    // The stranger has no credential of its own: the member's is not theirs to use.
    const strangers = await generate(
      "image",
      { model: IMAGE, input: { prompt: "x" }, wait: 10 },
      stranger.cookie,
    );
    expect(strangers.body.credential_id).toBeNull();

    const list = await (await builder.request("/api/credentials", { cookie: member.cookie })).text();
    expect(list).toContain(credentialId);
    expect(list).not.toContain(WORKSPACE_TOKEN);
  });

  it("verifies its generation's webhook with its own account's secret, not the server account's", async () => {
    fake.outcome = () => "manual";
    expect(fake.webhookSecretOf(WORKSPACE_TOKEN)).not.toBe(fake.webhookSecret);
    const { body: mine } = await generate(
      "video",
      { model: VIDEO, input: { prompt: "waves" } },
      member.cookie,
    );
    const { body: theirs } = await generate("image", { model: IMAGE, input: { prompt: "dunes" } });
    const now = String(Math.floor(clock.now().getTime() / 1000));

    // Each generation's webhook signed with the other account's secret is refused.
    const mineBody = succeededBody(mine.prediction_id ?? "");
    const serverSigned = signWebhook(fake.webhookSecret, "msg_cross_1", now, mineBody);
    expect(
      (
        await postWebhook(mine.id, {
          id: "msg_cross_1",
          timestamp: now,
          signature: serverSigned,
          body: mineBody,
        })
      ).status,
    ).toBe(401);
    const theirsBody = succeededBody(theirs.prediction_id ?? "");
    const memberSigned = signWebhook(fake.webhookSecretOf(WORKSPACE_TOKEN), "msg_cross_2", now, theirsBody);
    expect(
      (
        await postWebhook(theirs.id, {
          id: "msg_cross_2",
          timestamp: now,
          signature: memberSigned,
          body: theirsBody,
        })
      ).status,
    ).toBe(401);
    expect((await getGeneration(mine.id, member.cookie)).status).toBe("starting");
    expect((await getGeneration(theirs.id)).status).toBe("starting");

    // Replicate's own deliveries, each signed by the account that created the prediction, are applied.
    await fake.complete(mine.prediction_id ?? "");
    expect(fake.webhooks.at(-1)?.status).toBe(200);
    await fake.complete(theirs.prediction_id ?? "");
    expect(fake.webhooks.at(-1)?.status).toBe(200);
    const done = await getGeneration(mine.id, member.cookie);
    expect(done.status).toBe("succeeded");
    expect(done.outputs[0]?.content_type).toBe("video/mp4");
    expect((await getGeneration(theirs.id)).status).toBe("succeeded");
    expect(new Set(tokensOf("GET /v1/webhooks/default/secret"))).toEqual(
      new Set([SERVER_TOKEN, WORKSPACE_TOKEN]),
    );
  });

  it("cancels with the token that created the generation", async () => {
    fake.outcome = () => "manual";
    const { body } = await generate("image", { model: IMAGE, input: { prompt: "slow" } }, member.cookie);
    const cancel = await builder.request(`/api/generations/${body.id}/cancel`, {
      method: "POST",
      cookie: member.cookie,
    });
    expect(cancel.status).toBe(200);
    expect(((await cancel.json()) as GenerationJson).status).toBe("canceled");
    expect(tokensOf(`POST /v1/predictions/${body.prediction_id}/cancel`)).toEqual([WORKSPACE_TOKEN]);
  });

  it("lists and describes models with the workspace's token, caching answers per token", async () => {
    // Past the cache lifetime, so every answer below is fetched or cached by this test.
    clock.advance(11 * 60_000);
    const since = fake.requests.length;
    const search = (cookie: string) =>
      builder.request("/api/replicate/models?type=video&query=fake-video", { cookie });
    expect(await (await search(member.cookie)).json()).toMatchObject({
      source: "replicate",
      data: [{ id: VIDEO }],
    });
    // Another workspace is not answered from the member's cache, and each token's answer is cached.
    await search(owner.cookie);
    await search(member.cookie);
    await search(owner.cookie);
    expect(tokensOf("QUERY /v1/models", since)).toEqual([WORKSPACE_TOKEN, SERVER_TOKEN]);

    for (const cookie of [member.cookie, owner.cookie, member.cookie]) {
      const response = await builder.request(`/api/replicate/models/${VIDEO}`, { cookie });
      expect(response.status).toBe(200);
    }
    expect(tokensOf(`GET /v1/models/${VIDEO}`, since)).toEqual([WORKSPACE_TOKEN, SERVER_TOKEN]);
  });
});

describe("output storage", () => {
  it("keeps serving outputs after Replicate deletes its copies", async () => {
    const { body } = await generate("image", { model: IMAGE, input: { prompt: "keep me" }, wait: 10 });
    const output = fake.predictions.get(body.prediction_id ?? "")?.output;
    const theirs = Array.isArray(output) ? String(output[0]) : "";
    expect(theirs).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/files\//);
    fake.deleteOutputs();
    expect((await fetch(theirs)).status).toBe(404);
    const ours = await fileBytes(body.outputs[0]?.url ?? "");
    expect(ours.status).toBe(200);
    expect(Buffer.from(await ours.arrayBuffer()).equals(TINY_PNG)).toBe(true);
  });

  it("documents every generation route in the OpenAPI document", async () => {
    const document = (await (await builder.request("/api/openapi.json")).json()) as {
      paths: Record<string, unknown>;
    };
    for (const path of [
      "/api/replicate/generate/image",
      "/api/replicate/generate/video",
      "/api/replicate/models/{owner}/{name}",
      "/api/replicate/models",
      "/api/replicate/webhook",
      "/api/generations",
      "/api/generations/{id}",
      "/api/generations/{id}/cancel",
      "/api/files/{id}",
    ])
      expect(document.paths[path], path).toBeDefined();
  });
});
