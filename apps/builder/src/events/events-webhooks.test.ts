import { FAKE_REPLICATE_MODELS, type FakeReplicate, freePort, startFakeReplicate } from "@app/testing";
import { verify } from "@app/webhooks";
import { type ReceivedDelivery, startTestReceiver, type TestReceiver } from "@app/webhooks/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestBuilder, type TestBuilder } from "../../test/harness.ts";
import { createBase, uploadOk, waitForDocument } from "../../test/knowledge-support.ts";
import { BUILDER_USER_AGENT } from "../product.ts";
import { checkWebhookTarget } from "../webhooks/check-webhook-url.ts";
import { MAX_WEBHOOKS_PER_WORKSPACE } from "../webhooks/contract.ts";
import { BUILDER_EVENT_TYPES } from "./event-types.ts";

type Webhook = {
  id: string;
  url: string;
  description: string;
  events: string[];
  status: "enabled" | "disabled";
  previous_secret_expires_at: string | null;
  created_at: string;
  secret?: string;
};
type Delivery = { id: string; webhook_id: string; event_id: string; event_type: string; status: string };
type EventJson = {
  id: string;
  object: "event";
  type: string;
  environment: string;
  created: number;
  data: { object: Record<string, unknown> };
};
type EventList = { object: "list"; data: EventJson[]; has_more: boolean; next_cursor: string | null };

// The real builder with its in-process delivery engine, delivering to a real receiver on loopback.
let builder: TestBuilder;
let receiver: TestReceiver;
let replicate: FakeReplicate;
/** Every secret issued so far: the receiver refuses (400) what none of them signed. */
const secrets: string[] = [];

beforeAll(async () => {
  replicate = await startFakeReplicate({ apiToken: "r8_test" });
  builder = await startTestBuilder({
    env: { ALLOW_PRIVATE_URLS: "1", REPLICATE_API_TOKEN: "r8_test", REPLICATE_BASE_URL: replicate.baseUrl },
  });
  receiver = await startTestReceiver({ secrets: () => secrets });
});
afterAll(async () => {
  await builder?.stop();
  await receiver?.close();
  await replicate?.close();
});

async function json<T>(response: Response): Promise<T> {
  return (await response.json()) as T;
}

async function register(
  cookie: string,
  body: Record<string, unknown>,
): Promise<Webhook & { secret: string }> {
  const response = await builder.request("/api/webhooks", {
    method: "POST",
    cookie,
    json: { url: receiver.url, ...body },
  });
  expect(response.status, await response.clone().text()).toBe(201);
  const webhook = await json<Webhook & { secret: string }>(response);
  secrets.push(webhook.secret);
  return webhook;
}

const graph = (url?: string) => ({
  nodes: [
    {
      id: "start",
      type: "start",
      position: { x: 0, y: 0 },
      data: { inputs: [{ name: "n", type: "number" }] },
    },
    ...(url ? [{ id: "call", type: "http", position: { x: 0, y: 0 }, data: { method: "GET", url } }] : []),
    {
      id: "done",
      type: "end",
      position: { x: 0, y: 0 },
      data: { outputs: [{ name: "n", value: "{{start.n}}" }] },
    },
  ],
  edges: url
    ? [
        { id: "a", source: "start", target: "call" },
        { id: "b", source: "call", target: "done" },
      ]
    : [{ id: "a", source: "start", target: "done" }],
});

/** Creates a workflow and runs it to the end; answers the run. */
async function runWorkflow(cookie: string, url?: string): Promise<{ id: string; status: string }> {
  const created = await builder.request("/api/workflows", {
    method: "POST",
    cookie,
    json: { name: "events", graph: graph(url) },
  });
  expect(created.status, await created.clone().text()).toBe(201);
  const { id } = await json<{ id: string }>(created);
  const run = await builder.request(`/api/workflows/${id}/runs`, {
    method: "POST",
    cookie,
    json: { inputs: { n: 7 } },
  });
  expect(run.status).toBe(200);
  return json(run);
}

/** The resource snapshot an event carries. */
const objectOf = (delivery: ReceivedDelivery) => delivery.event.data.object as Record<string, unknown>;

/** The delivery of the event about `objectId`, once the receiver has it. */
async function deliveryAbout(objectId: string, type: string): Promise<ReceivedDelivery> {
  const matches = (delivery: ReceivedDelivery) =>
    delivery.event.type === type && objectOf(delivery).id === objectId;
  await receiver.waitFor((received) => received.some(matches));
  const found = receiver.received.find(matches);
  if (!found) throw new Error("unreachable");
  return found;
}

describe("events delivered to a workspace's endpoints", () => {
  it("delivers a workflow run's event signed, verifiable with the secret, as the stored bytes", async () => {
    const { cookie } = await builder.signUp();
    const webhook = await register(cookie, { events: ["workflow.run.succeeded", "workflow.run.failed"] });
    expect(webhook).toMatchObject({ url: receiver.url, status: "enabled", previous_secret_expires_at: null });
    expect(webhook.secret).toMatch(/^whsec_[0-9a-f]{64}$/);

    const run = await runWorkflow(cookie);
    expect(run.status).toBe("succeeded");
    const delivery = await deliveryAbout(run.id, "workflow.run.succeeded");
    expect(delivery.verification?.isValid).toBe(true);
    expect(
      verify({
        rawBody: delivery.rawBody,
        header: String(delivery.headers["x-service-signature"]),
        secret: webhook.secret,
      }),
    ).toMatchObject({ isValid: true });
    expect(
      verify({
        rawBody: delivery.rawBody,
        header: String(delivery.headers["x-service-signature"]),
        secret: "whsec_other",
      }),
    ).toEqual({ isValid: false, reason: "signature_mismatch" });
    expect(delivery.headers["x-service-signature"]).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(delivery.headers["user-agent"]).toBe(BUILDER_USER_AGENT);
    expect(BUILDER_USER_AGENT).toMatch(/^AIBuilder\/\d+\.\d+\.\d+$/);
    expect(delivery.headers["x-service-event"]).toBe("workflow.run.succeeded");
    expect(delivery.headers["x-service-delivery"]).toMatch(/^\d+$/);
    expect(delivery.headers["content-type"]).toBe("application/json");
    expect(delivery.event).toMatchObject({
      object: "event",
      type: "workflow.run.succeeded",
      environment: "live",
      data: { object: { id: run.id, status: "succeeded", outputs: { n: 7 }, trigger: "api" } },
    });
    expect(delivery.event.id).toMatch(/^evt_[0-9a-z]{26}$/);

    // The events API answers the very bytes that were signed and delivered.
    const stored = await builder.request(`/api/events/${delivery.event.id}`, { cookie });
    expect(stored.status).toBe(200);
    expect(await stored.text()).toBe(delivery.rawBody);

    // A failing run: its HTTP node calls a port nobody listens on.
    const failed = await runWorkflow(cookie, `http://127.0.0.1:${await freePort()}/nothing`);
    expect(failed.status).toBe("failed");
    const failure = await deliveryAbout(failed.id, "workflow.run.failed");
    expect(failure.verification?.isValid).toBe(true);
    expect(objectOf(failure)).toMatchObject({ id: failed.id, status: "failed" });

    await expect
      .poll(async () => {
        const page = await json<{ data: Delivery[] }>(
          await builder.request(`/api/webhooks/${webhook.id}/deliveries?status=delivered`, { cookie }),
        );
        return page.data.map((d) => d.event_type).sort();
      })
      .toEqual(["workflow.run.failed", "workflow.run.succeeded"]);
  });

  it("delivers document.ready and document.failed from ingestion, and only to subscribed endpoints", async () => {
    const { cookie } = await builder.signUp();
    const documents = await register(cookie, { events: ["document.ready", "document.failed"] });
    const runsOnly = await register(cookie, { events: ["workflow.run.succeeded"] });
    const base = await createBase(builder, cookie, { name: "Events" });

    const text = await uploadOk(builder, cookie, {
      knowledgeBaseId: base,
      name: "a.txt",
      bytes: "ready soon",
    });
    const ready = await deliveryAbout(text.id, "document.ready");
    expect(ready.verification?.isValid).toBe(true);
    expect(objectOf(ready)).toMatchObject({
      id: text.id,
      status: "ready",
      progress: 100,
      knowledge_base_id: base,
    });
    expect(
      verify({
        rawBody: ready.rawBody,
        header: String(ready.headers["x-service-signature"]),
        secret: documents.secret,
      }).isValid,
    ).toBe(true);

    const broken = await uploadOk(builder, cookie, {
      knowledgeBaseId: base,
      name: "broken.pdf",
      bytes: "%PDF-1.7\nthis is not really a pdf body\n%%EOF",
    });
    expect((await waitForDocument(builder, cookie, broken.id)).status).toBe("failed");
    const failed = await deliveryAbout(broken.id, "document.failed");
    expect(objectOf(failed)).toMatchObject({ id: broken.id, status: "failed", chunk_count: 0 });
    expect(objectOf(failed).error).toMatch(/^The PDF could not be read: /);

    // Deliveries are scheduled in the event's own transaction: none was made for the other endpoint.
    const other = await json<{ data: Delivery[] }>(
      await builder.request(`/api/webhooks/${runsOnly.id}/deliveries`, { cookie }),
    );
    expect(other.data).toEqual([]);
    const mine = await json<{ data: Delivery[] }>(
      await builder.request(`/api/webhooks/${documents.id}/deliveries`, { cookie }),
    );
    expect(mine.data.map((d) => d.event_id).sort()).toEqual([ready.event.id, failed.event.id].sort());
  });

  it("delivers generation.succeeded and generation.failed when a generation settles", async () => {
    const { cookie } = await builder.signUp();
    await register(cookie, { events: ["generation.succeeded", "generation.failed"] });
    const { owner, name } = FAKE_REPLICATE_MODELS.image;
    const generate = async () => {
      const response = await builder.request("/api/replicate/generate/image", {
        method: "POST",
        cookie,
        json: { model: `${owner}/${name}`, input: { prompt: "a red fox" }, wait: 30 },
      });
      expect(response.status).toBe(201);
      return json<{ id: string; status: string }>(response);
    };
    replicate.outcome = () => "instant";
    const made = await generate();
    expect(made.status).toBe("succeeded");
    const succeeded = await deliveryAbout(made.id, "generation.succeeded");
    expect(succeeded.verification?.isValid).toBe(true);
    expect(objectOf(succeeded)).toMatchObject({
      id: made.id,
      status: "succeeded",
      outputs: [{ content_type: "image/png", url: expect.stringContaining("/api/files/") }],
    });

    replicate.outcome = () => ({ error: "CUDA out of memory" });
    const broken = await generate();
    expect(broken.status).toBe("failed");
    const failed = await deliveryAbout(broken.id, "generation.failed");
    expect(objectOf(failed)).toMatchObject({ id: broken.id, status: "failed", error: "CUDA out of memory" });
    replicate.outcome = () => "instant";
  });

  it("signs with both secrets for a day after a rotation", async () => {
    const { cookie } = await builder.signUp();
    const webhook = await register(cookie, { events: ["*"] });
    const rotated = await builder.request(`/api/webhooks/${webhook.id}/rotate-secret`, {
      method: "POST",
      cookie,
    });
    expect(rotated.status).toBe(200);
    const renewed = await json<Webhook & { secret: string }>(rotated);
    secrets.push(renewed.secret);
    expect(renewed.secret).not.toBe(webhook.secret);
    const overlapEnds = Date.parse(renewed.previous_secret_expires_at ?? "");
    expect(overlapEnds - Date.now()).toBeGreaterThan(23 * 3_600_000);
    expect(
      (await json<Webhook>(await builder.request(`/api/webhooks/${webhook.id}`, { cookie }))).secret,
    ).toBeUndefined();

    const run = await runWorkflow(cookie);
    const delivery = await deliveryAbout(run.id, "workflow.run.succeeded");
    const header = String(delivery.headers["x-service-signature"]);
    expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
    for (const secret of [renewed.secret, webhook.secret])
      expect(verify({ rawBody: delivery.rawBody, header, secret }).isValid).toBe(true);
  });
});

describe("webhook endpoints", () => {
  it("creates, reads, lists, changes and deletes; the secret is shown only once", async () => {
    const { cookie } = await builder.signUp();
    const created = await register(cookie, {
      events: ["document.ready", "*", "document.ready"],
      description: "everything",
    });
    expect(created.events).toEqual(["*"]);
    const read = await json<Webhook>(await builder.request(`/api/webhooks/${created.id}`, { cookie }));
    expect(read).toMatchObject({ id: created.id, description: "everything", events: ["*"] });
    expect(read).not.toHaveProperty("secret");
    const second = await register(cookie, { events: ["generation.succeeded"] });
    const list = await json<{ data: Webhook[]; has_more: boolean; next_cursor: string | null }>(
      await builder.request("/api/webhooks?limit=1", { cookie }),
    );
    expect(list).toMatchObject({ has_more: true, next_cursor: second.id });
    expect(list.data.map((w) => w.id)).toEqual([second.id]);
    expect(list.data[0]).not.toHaveProperty("secret");
    const rest = await json<{ data: Webhook[]; has_more: boolean }>(
      await builder.request(`/api/webhooks?limit=1&cursor=${list.next_cursor}`, { cookie }),
    );
    expect(rest).toMatchObject({ has_more: false, data: [{ id: created.id }] });

    const patched = await builder.request(`/api/webhooks/${created.id}`, {
      method: "PATCH",
      cookie,
      json: { events: ["generation.failed", "generation.failed"], disabled: true, description: "quiet" },
    });
    expect(await json(patched)).toMatchObject({
      events: ["generation.failed"],
      status: "disabled",
      description: "quiet",
    });

    expect((await builder.request(`/api/webhooks/${created.id}`, { method: "DELETE", cookie })).status).toBe(
      204,
    );
    expect((await builder.request(`/api/webhooks/${created.id}`, { cookie })).status).toBe(404);
    expect((await builder.request(`/api/webhooks/${created.id}`, { method: "DELETE", cookie })).status).toBe(
      404,
    );
  });

  it("refuses unknown event types, bad URLs, unknown fields and oversized values with a 422 naming the field", async () => {
    const { cookie } = await builder.signUp();
    const post = (body: Record<string, unknown>) =>
      builder.request("/api/webhooks", {
        method: "POST",
        cookie,
        json: { url: receiver.url, events: ["*"], ...body },
      });
    const cases: [Record<string, unknown>, string, string][] = [
      [{ events: ["workflow.run.succeeded", "payment.succeeded"] }, "validation_failed", "events[1]"],
      [{ events: [] }, "validation_failed", "events"],
      [{ url: "ftp://example.com/hook" }, "invalid_webhook_url", "url"],
      [{ url: "not a url" }, "invalid_webhook_url", "url"],
      [{ url: "http://user:pass@127.0.0.1/hook" }, "invalid_webhook_url", "url"],
      [{ url: `https://example.com/${"a".repeat(2048)}` }, "validation_failed", "url"],
      [{ description: "d".repeat(501) }, "validation_failed", "description"],
      [{ enabled_events: ["*"] }, "validation_failed", ""],
    ];
    for (const [body, code, param] of cases) {
      const response = await post(body);
      expect(response.status, JSON.stringify(body).slice(0, 80)).toBe(422);
      const error = (await json<{ error: { code: string; param?: string } }>(response)).error;
      expect(error.code).toBe(code);
      if (param) expect(error.param).toBe(param);
    }
    const webhook = await register(cookie, { events: ["*"] });
    const patch = await builder.request(`/api/webhooks/${webhook.id}`, {
      method: "PATCH",
      cookie,
      json: { events: ["nope"] },
    });
    expect(patch.status).toBe(422);
    expect((await json<{ error: { param: string } }>(patch)).error.param).toBe("events[0]");
    // The catalogue is exactly the seven types, and a run's wait for approval (issue 34).
    expect([...BUILDER_EVENT_TYPES]).toEqual([
      "workflow.run.succeeded",
      "workflow.run.failed",
      "workflow.run.waiting",
      "document.ready",
      "document.failed",
      "generation.succeeded",
      "generation.failed",
      "billing.credits.added",
    ]);
  });

  it("caps the endpoints of a workspace", async () => {
    const { cookie } = await builder.signUp();
    for (let i = 0; i < MAX_WEBHOOKS_PER_WORKSPACE; i++)
      await register(cookie, { events: ["document.ready"] });
    const over = await builder.request("/api/webhooks", {
      method: "POST",
      cookie,
      json: { url: receiver.url, events: ["document.ready"] },
    });
    expect(over.status).toBe(409);
    expect((await json<{ error: { code: string } }>(over)).error.code).toBe("webhook_limit_reached");
  });

  it("refuses private targets and plain http unless ALLOW_PRIVATE_URLS=1", async () => {
    const strict = { allowPrivateUrls: false };
    for (const url of [
      "https://127.0.0.1/hook",
      "https://10.1.2.3/hook",
      "https://169.254.169.254/latest",
      "https://[::1]/hook",
    ]) {
      await expect(checkWebhookTarget(strict, url), url).rejects.toMatchObject({
        status: 422,
        code: "invalid_webhook_url",
        param: "url",
        message: expect.stringMatching(/private, loopback or reserved/),
      });
    }
    await expect(checkWebhookTarget(strict, "http://example.com/hook")).rejects.toMatchObject({
      code: "invalid_webhook_url",
      message: expect.stringMatching(/must use https/),
    });
    expect(await checkWebhookTarget({ allowPrivateUrls: true }, "http://127.0.0.1:9/hook")).toBe(
      "http://127.0.0.1:9/hook",
    );
  });
});

describe("tenancy", () => {
  it("answers 404 for another workspace's endpoints, deliveries and events", async () => {
    const alice = await builder.signUp();
    const bob = await builder.signUp();
    const webhook = await register(alice.cookie, { events: ["workflow.run.succeeded"] });
    const run = await runWorkflow(alice.cookie);
    const delivered = await deliveryAbout(run.id, "workflow.run.succeeded");
    const deliveries = await json<{ data: Delivery[] }>(
      await builder.request(`/api/webhooks/${webhook.id}/deliveries`, { cookie: alice.cookie }),
    );
    const deliveryId = deliveries.data[0]?.id ?? "";
    expect(deliveryId).toMatch(/^wd_/);

    const attempts: [string, string, unknown?][] = [
      ["GET", `/api/webhooks/${webhook.id}`],
      ["PATCH", `/api/webhooks/${webhook.id}`, { disabled: true }],
      ["DELETE", `/api/webhooks/${webhook.id}`],
      ["POST", `/api/webhooks/${webhook.id}/rotate-secret`],
      ["GET", `/api/webhooks/${webhook.id}/deliveries`],
      ["GET", `/api/webhooks/${webhook.id}/deliveries/${deliveryId}`],
      ["POST", `/api/webhooks/${webhook.id}/deliveries/${deliveryId}/replay`],
      ["POST", `/api/webhooks/${webhook.id}/deliveries/replay-failed`, { since: "2020-01-01T00:00:00Z" }],
      ["GET", `/api/events/${delivered.event.id}`],
      ["GET", `/api/events?starting_after=${delivered.event.id}`],
    ];
    for (const [method, path, body] of attempts) {
      const response = await builder.request(path, {
        method,
        cookie: bob.cookie,
        ...(body ? { json: body } : {}),
      });
      expect(response.status, `${method} ${path}`).toBe(404);
    }
    expect(
      (await json<EventList>(await builder.request("/api/events", { cookie: bob.cookie }))).data,
    ).toEqual([]);
    expect(
      (await json<{ data: Webhook[] }>(await builder.request("/api/webhooks", { cookie: bob.cookie }))).data,
    ).toEqual([]);

    // Nothing of Alice's changed.
    const still = await json<Webhook>(
      await builder.request(`/api/webhooks/${webhook.id}`, { cookie: alice.cookie }),
    );
    expect(still.status).toBe("enabled");
    // A delivery is found only under its own endpoint.
    const mine = await register(alice.cookie, { events: ["document.ready"] });
    expect(
      (await builder.request(`/api/webhooks/${mine.id}/deliveries/${deliveryId}`, { cookie: alice.cookie }))
        .status,
    ).toBe(404);
    expect(
      (
        await builder.request(`/api/webhooks/${webhook.id}/deliveries/${deliveryId}`, {
          cookie: alice.cookie,
        })
      ).status,
    ).toBe(200);
  });
});

describe("GET /api/events", () => {
  it("pages newest first, walks forward with starting_after and back with ending_before", async () => {
    const { cookie } = await builder.signUp();
    const runs: string[] = [];
    for (let i = 0; i < 4; i++) runs.push((await runWorkflow(cookie)).id);
    const list = async (query = "") =>
      json<EventList>(await builder.request(`/api/events${query}`, { cookie }));
    const runOf = (event: EventJson) => event.data.object.id;

    // Events appear once every older transaction has finished; poll rather than assume it is at once.
    await expect.poll(async () => (await list()).data.map(runOf)).toEqual([...runs].reverse());
    const ids = (await list()).data.map((event) => event.id).reverse(); // oldest first
    expect([...ids].sort()).toEqual(ids);

    const newest = await list("?limit=2");
    expect(newest.data.map((e) => e.id)).toEqual([ids[3], ids[2]]);
    expect(newest).toMatchObject({ object: "list", has_more: true, next_cursor: ids[2] });
    const older = await list(`?limit=2&ending_before=${newest.next_cursor}`);
    expect(older.data.map((e) => e.id)).toEqual([ids[1], ids[0]]);
    expect(older).toMatchObject({ has_more: false, next_cursor: null });

    // The reconciliation walk: the events right after a cursor, newest first; has_more while newer remain.
    const after = await list(`?limit=2&starting_after=${ids[0]}`);
    expect(after.data.map((e) => e.id)).toEqual([ids[2], ids[1]]);
    expect(after).toMatchObject({ has_more: true, next_cursor: ids[2] });
    const tail = await list(`?limit=2&starting_after=${after.next_cursor}`);
    expect(tail.data.map((e) => e.id)).toEqual([ids[3]]);
    expect(tail.has_more).toBe(false);

    expect((await list("?type=workflow.run.failed")).data).toEqual([]);
    expect((await list("?type=workflow.run.succeeded&limit=1")).data.map((e) => e.id)).toEqual([ids[3]]);

    const bad = async (query: string, status: number, param: string) => {
      const response = await builder.request(`/api/events${query}`, { cookie });
      expect(response.status, query).toBe(status);
      expect((await json<{ error: { param?: string } }>(response)).error.param, query).toBe(param);
    };
    await bad("?type=payment.succeeded", 422, "type");
    await bad("?limit=0", 422, "limit");
    await bad("?limit=101", 422, "limit");
    await bad(`?starting_after=${ids[0]}&ending_before=${ids[1]}`, 422, "ending_before");
    await bad("?starting_after=evt_not_an_id", 422, "starting_after");
    await bad(`?ending_before=evt_${"0".repeat(26)}`, 404, "ending_before");
    expect((await builder.request(`/api/events/evt_${"0".repeat(26)}`, { cookie })).status).toBe(404);
  });
});
