import { manualClock, unixSeconds } from "@app/core";
import { RETRY_DELAYS_MS } from "@app/webhooks";
import { startTestReceiver, type TestReceiver } from "@app/webhooks/testing";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startTestBuilder, type TestBuilder } from "../../test/harness.ts";
import { createBuilderDeliveryEngine } from "./delivery-engine.ts";
import { startWebhookRetention } from "./delivery-retention.ts";

type Attempt = {
  id: number;
  attempted_at: string;
  response_status: number | null;
  request_headers: Record<string, string>;
};
type Delivery = {
  id: string;
  webhook_id: string;
  event_id: string;
  status: string;
  attempt_count: number;
  failure_count: number;
  next_attempt_at: string | null;
  replay_count: number;
  attempts?: Attempt[];
};

// Time is the injected clock and the engine is driven by hand (runDue), so the whole 32-hour
// schedule runs in milliseconds and "not yet due" can be asserted exactly.
const clock = manualClock(new Date("2026-03-01T08:00:00Z"));
let builder: TestBuilder;
let receiver: TestReceiver;
let engine: ReturnType<typeof createBuilderDeliveryEngine>;
let secret = "";

beforeAll(async () => {
  builder = await startTestBuilder({
    clock,
    env: { ALLOW_PRIVATE_URLS: "1" },
    deps: { eventDelivery: { isInline: false } },
  });
  engine = createBuilderDeliveryEngine(builder.deps);
  receiver = await startTestReceiver({ secrets: () => [secret], now: () => clock.now() });
});
afterAll(async () => {
  await builder?.stop();
  await receiver?.close();
});
beforeEach(() => {
  receiver.received.length = 0;
  receiver.respondWith(() => 200);
});

async function json<T>(response: Response): Promise<T> {
  return (await response.json()) as T;
}

/** A user with one endpoint on the receiver and a workflow whose every run emits an event. */
async function setUp() {
  const { cookie } = await builder.signUp();
  const registered = await builder.request("/api/webhooks", {
    method: "POST",
    cookie,
    json: { url: receiver.url, events: ["workflow.run.succeeded"] },
  });
  expect(registered.status).toBe(201);
  const webhook = await json<{ id: string; secret: string }>(registered);
  secret = webhook.secret;
  const workflow = await json<{ id: string }>(
    await builder.request("/api/workflows", {
      method: "POST",
      cookie,
      json: {
        name: "ping",
        graph: {
          nodes: [
            { id: "start", type: "start", position: { x: 0, y: 0 }, data: { inputs: [] } },
            {
              id: "done",
              type: "end",
              position: { x: 0, y: 0 },
              data: { outputs: [{ name: "ok", value: "yes" }] },
            },
          ],
          edges: [{ id: "e", source: "start", target: "done" }],
        },
      },
    }),
  );
  const run = async () => {
    const response = await builder.request(`/api/workflows/${workflow.id}/runs`, {
      method: "POST",
      cookie,
      json: { inputs: {} },
    });
    expect(response.status).toBe(200);
    return (await json<{ id: string }>(response)).id;
  };
  const deliveries = async (query = "") =>
    (
      await json<{ data: Delivery[] }>(
        await builder.request(`/api/webhooks/${webhook.id}/deliveries${query}`, { cookie }),
      )
    ).data;
  const delivery = async (id: string) =>
    builder.request(`/api/webhooks/${webhook.id}/deliveries/${id}`, { cookie });
  return { cookie, webhook, run, deliveries, delivery };
}

describe("a failing receiver", () => {
  it("sees the retry schedule: 1 min, 5 min, 30 min, 2 h, 6 h, 24 h, then the delivery is parked; replay delivers it", async () => {
    const user = await setUp();
    receiver.respondWith(() => 500);
    await user.run();
    const first = clock.now();
    expect(await engine.runDue()).toBe(1);
    const [retrying] = await user.deliveries();
    if (!retrying) throw new Error("no delivery");
    expect(retrying).toMatchObject({ status: "retrying", attempt_count: 1, failure_count: 1 });
    expect(retrying.next_attempt_at).toBe(new Date(first.getTime() + 60_000).toISOString());

    // Only delivered or failed deliveries can be replayed.
    const early = await builder.request(`/api/webhooks/${user.webhook.id}/deliveries/${retrying.id}/replay`, {
      method: "POST",
      cookie: user.cookie,
    });
    expect(early.status).toBe(409);
    expect((await json<{ error: { code: string } }>(early)).error.code).toBe("delivery_already_scheduled");

    expect(RETRY_DELAYS_MS).toEqual([60_000, 300_000, 1_800_000, 7_200_000, 21_600_000, 86_400_000]);
    for (const delay of RETRY_DELAYS_MS) {
      clock.advance(delay - 1_000);
      expect(await engine.runDue(), "a second early").toBe(0);
      clock.advance(1_000);
      expect(await engine.runDue()).toBe(1);
    }
    const parked = await json<Delivery>(await user.delivery(retrying.id));
    expect(parked).toMatchObject({
      status: "failed",
      attempt_count: 7,
      failure_count: 7,
      next_attempt_at: null,
    });
    clock.advance(7 * 24 * 3_600_000);
    expect(await engine.runDue(), "a parked delivery is not attempted again").toBe(0);

    // Seven attempts, each at its scheduled time, each signed afresh and with its own attempt id.
    const attempts = parked.attempts ?? [];
    const offsets = attempts.map((attempt) => Date.parse(attempt.attempted_at) - first.getTime());
    let at = 0;
    expect(offsets).toEqual([0, ...RETRY_DELAYS_MS.map((delay) => (at += delay))]);
    expect(attempts.map((attempt) => attempt.response_status)).toEqual(Array(7).fill(500));
    expect(attempts.map((attempt) => attempt.request_headers["x-service-delivery"])).toEqual(
      attempts.map((attempt) => String(attempt.id)),
    );
    expect(new Set(attempts.map((attempt) => attempt.id)).size).toBe(7);
    expect(receiver.received).toHaveLength(7);
    expect(receiver.received.map((delivery) => delivery.verification?.isValid)).toEqual(Array(7).fill(true));
    expect(receiver.received.map((delivery) => delivery.headers["x-service-signature"])).toEqual(
      attempts.map((attempt) => attempt.request_headers["x-service-signature"]),
    );
    expect(new Set(receiver.received.map((delivery) => delivery.rawBody)).size).toBe(1);

    receiver.respondWith(() => 200);
    const replayed = await builder.request(
      `/api/webhooks/${user.webhook.id}/deliveries/${retrying.id}/replay`,
      {
        method: "POST",
        cookie: user.cookie,
      },
    );
    expect(replayed.status).toBe(200);
    expect(await json(replayed)).toMatchObject({ status: "pending", replay_count: 1, failure_count: 0 });
    expect(await engine.runDue()).toBe(1);
    const delivered = await json<Delivery>(await user.delivery(retrying.id));
    expect(delivered).toMatchObject({ status: "delivered", attempt_count: 8, replay_count: 1 });
    const last = receiver.received.at(-1);
    expect(last?.rawBody).toBe(receiver.received[0]?.rawBody);
    expect(last?.event.id).toBe(retrying.event_id);
    expect(last?.verification).toEqual({ isValid: true, timestamp: unixSeconds(clock.now()) });
  });

  it("replays every failed delivery of an endpoint since a time", async () => {
    const user = await setUp();
    receiver.respondWith(() => 503);
    const since = clock.now().toISOString();
    await user.run();
    await user.run();
    for (const delay of [0, ...RETRY_DELAYS_MS]) {
      clock.advance(delay);
      await engine.runDue();
    }
    expect((await user.deliveries("?status=failed")).map((d) => d.status)).toEqual(["failed", "failed"]);
    receiver.respondWith(() => 200);
    const replay = (body: unknown) =>
      builder.request(`/api/webhooks/${user.webhook.id}/deliveries/replay-failed`, {
        method: "POST",
        cookie: user.cookie,
        json: body,
      });
    expect(await json(await replay({ since: clock.now().toISOString() }))).toEqual({ replayed: 0 });
    expect((await replay({ since: "yesterday" })).status).toBe(422);
    expect(await json(await replay({ since }))).toEqual({ replayed: 2 });
    expect(await engine.runDue()).toBe(2);
    expect((await user.deliveries("?status=delivered")).length).toBe(2);
  });
});

describe("retention", () => {
  it("prunes delivery and attempt records after 90 days and keeps events", async () => {
    const user = await setUp();
    await user.run();
    expect(await engine.runDue()).toBe(1);
    const [delivery] = await user.deliveries();
    if (!delivery) throw new Error("no delivery");

    clock.advance(89 * 24 * 3_600_000);
    await startWebhookRetention(builder.deps, 3_600_000).stop();
    expect((await user.delivery(delivery.id)).status).toBe(200);

    clock.advance(2 * 24 * 3_600_000);
    await startWebhookRetention(builder.deps, 3_600_000).stop();
    expect((await user.delivery(delivery.id)).status).toBe(404);
    expect(await user.deliveries()).toEqual([]);
    const event = await builder.request(`/api/events/${delivery.event_id}`, { cookie: user.cookie });
    expect(event.status).toBe(200);
  });
});
