import { manualClock } from "@app/core";
import { verify } from "@app/webhooks";
import { startTestReceiver, type TestReceiver } from "@app/webhooks/testing";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { json, startTestPayments, type TestPayments } from "../../test/harness.ts";
import { PRODUCT_USER_AGENT } from "../product.ts";

type Endpoint = { id: string; secret?: string; status: string; enabled_events: string[]; url: string };
type Delivery = {
  id: string;
  status: string;
  event: string;
  attempt_count: number;
  next_attempt_at: number | null;
  replay_count: number;
  attempts?: { id: number; response_status: number | null; request_headers: Record<string, string> }[];
};

const clock = manualClock(new Date("2026-03-01T08:00:00Z"));
let payments: TestPayments;
let receiver: TestReceiver;
let secrets: string[] = [];

beforeAll(async () => {
  payments = await startTestPayments({ clock });
  receiver = await startTestReceiver({ secrets: () => secrets, now: () => clock.now() });
});
afterAll(async () => {
  await receiver?.close();
  await payments?.stop();
});
beforeEach(() => {
  receiver.received.length = 0;
  receiver.respondWith(() => 200);
});

async function registerEndpoint(key: string, body: Record<string, unknown> = {}): Promise<Endpoint> {
  const response = await payments.request("/v1/webhook_endpoints", {
    method: "POST",
    key,
    json: { url: receiver.url, enabled_events: ["*"], ...body },
  });
  expect(response.status).toBe(201);
  const endpoint = await json<Endpoint>(response);
  secrets = [endpoint.secret ?? ""];
  return endpoint;
}

async function createPayment(key: string) {
  clock.advance(1);
  return json<{ id: string }>(
    await payments.request("/v1/payments", { method: "POST", key, json: { amount: 5000, method: "qris" } }),
  );
}

describe("webhook endpoints", () => {
  it("shows the secret only when created, and never in reads", async () => {
    const { testKey } = await payments.newMerchant();
    const endpoint = await registerEndpoint(testKey, { description: "orders" });
    expect(endpoint.secret).toMatch(/^whsec_[0-9a-f]{64}$/);
    const read = await json<Endpoint>(
      await payments.request(`/v1/webhook_endpoints/${endpoint.id}`, { key: testKey }),
    );
    expect(read).toMatchObject({ id: endpoint.id, status: "enabled", enabled_events: ["*"] });
    expect(read).not.toHaveProperty("secret");
    const list = await json<{ data: Endpoint[] }>(
      await payments.request("/v1/webhook_endpoints", { key: testKey }),
    );
    expect(list.data.map((e) => e.id)).toEqual([endpoint.id]);
    expect(list.data[0]).not.toHaveProperty("secret");
  });

  it("requires https in live mode", async () => {
    const response = await payments.request("/v1/webhook_endpoints", {
      method: "POST",
      key: payments.liveKey,
      json: { url: receiver.url, enabled_events: ["*"] },
    });
    expect(response.status).toBe(422);
    expect(await json(response)).toMatchObject({ error: { code: "invalid_webhook_url", param: "url" } });
  });

  it("updates, disables and deletes", async () => {
    const { testKey } = await payments.newMerchant();
    const endpoint = await registerEndpoint(testKey);
    const patched = await payments.request(`/v1/webhook_endpoints/${endpoint.id}`, {
      method: "PATCH",
      key: testKey,
      json: { enabled_events: ["payment.failed"], disabled: true },
    });
    expect(await json(patched)).toMatchObject({ enabled_events: ["payment.failed"], status: "disabled" });
    await createPayment(testKey);
    expect(await payments.engine.runDue()).toBe(0);
    const removed = await payments.request(`/v1/webhook_endpoints/${endpoint.id}`, {
      method: "DELETE",
      key: testKey,
    });
    expect(await json(removed)).toEqual({ id: endpoint.id, object: "webhook_endpoint", deleted: true });
    expect((await payments.request(`/v1/webhook_endpoints/${endpoint.id}`, { key: testKey })).status).toBe(
      404,
    );
    expect(
      (await payments.request(`/v1/webhook_endpoints/${endpoint.id}`, { method: "DELETE", key: testKey }))
        .status,
    ).toBe(404);
  });
});

describe("deliveries through the running service", () => {
  it("delivers the stored bytes with exactly the seed's headers, verifiable with the secret", async () => {
    const { testKey } = await payments.newMerchant();
    const endpoint = await registerEndpoint(testKey);
    const payment = await createPayment(testKey);
    expect(await payments.engine.runDue()).toBe(1);
    const [delivery] = receiver.received;
    if (!delivery) throw new Error("nothing delivered");
    expect(delivery.verification).toEqual({
      isValid: true,
      timestamp: Math.floor(clock.now().getTime() / 1000),
    });
    expect(delivery.headers["user-agent"]).toBe(PRODUCT_USER_AGENT);
    expect(PRODUCT_USER_AGENT).toMatch(/^PaymentService\/\d+\.\d+\.\d+$/);
    expect(delivery.headers["x-service-event"]).toBe("payment.pending");
    expect(delivery.headers["x-service-delivery"]).toMatch(/^\d+$/);
    expect(delivery.headers["x-service-signature"]).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(delivery.event).toMatchObject({
      object: "event",
      type: "payment.pending",
      environment: "test",
      data: { object: { id: payment.id } },
    });
    const fromApi = await payments.request(`/v1/events/${delivery.event.id}`, { key: testKey });
    expect(await fromApi.text()).toBe(delivery.rawBody);
    expect(
      verify({
        rawBody: delivery.rawBody,
        header: String(delivery.headers["x-service-signature"]),
        secret: endpoint.secret ?? "",
        now: clock.now(),
      }).isValid,
    ).toBe(true);
  });

  it("records deliveries and attempts, lists them by endpoint, event and status, and replays", async () => {
    const { testKey } = await payments.newMerchant();
    const endpoint = await registerEndpoint(testKey);
    receiver.respondWith(() => 500);
    await createPayment(testKey);
    await payments.engine.runDue();
    const event = receiver.received[0]?.event.id ?? "";
    const retrying = await json<{ data: Delivery[] }>(
      await payments.request(`/v1/webhook_deliveries?status=retrying&endpoint=${endpoint.id}`, {
        key: testKey,
      }),
    );
    expect(retrying.data).toHaveLength(1);
    const deliveryId = retrying.data[0]?.id ?? "";
    expect(retrying.data[0]).toMatchObject({
      event,
      attempt_count: 1,
      next_attempt_at: Math.floor(clock.now().getTime() / 1000) + 60,
    });
    const byEvent = await json<{ data: Delivery[] }>(
      await payments.request(`/v1/webhook_deliveries?event=${event}`, { key: testKey }),
    );
    expect(byEvent.data.map((d) => d.id)).toEqual([deliveryId]);

    const early = await payments.request(`/v1/webhook_deliveries/${deliveryId}/replay`, {
      method: "POST",
      key: testKey,
    });
    expect(early.status).toBe(409);
    expect(await json(early)).toMatchObject({ error: { code: "delivery_already_scheduled" } });

    for (const minutes of [1, 5, 30, 120, 360, 1440]) {
      clock.advance(minutes * 60_000);
      await payments.engine.runDue();
    }
    const parked = await json<Delivery>(
      await payments.request(`/v1/webhook_deliveries/${deliveryId}`, { key: testKey }),
    );
    expect(parked).toMatchObject({ status: "failed", attempt_count: 7, next_attempt_at: null });
    expect(parked.attempts?.map((a) => a.response_status)).toEqual([500, 500, 500, 500, 500, 500, 500]);
    const attemptIds = parked.attempts?.map((a) => a.id) ?? [];
    expect(new Set(attemptIds).size).toBe(7);
    expect(parked.attempts?.map((a) => a.request_headers["x-service-delivery"])).toEqual(
      attemptIds.map(String),
    );

    receiver.respondWith(() => 200);
    const replayed = await payments.request(`/v1/webhook_deliveries/${deliveryId}/replay`, {
      method: "POST",
      key: testKey,
    });
    expect(replayed.status).toBe(200);
    expect(await json(replayed)).toMatchObject({ status: "pending", replay_count: 1 });
    await payments.engine.runDue();
    const delivered = await json<Delivery>(
      await payments.request(`/v1/webhook_deliveries/${deliveryId}`, { key: testKey }),
    );
    expect(delivered).toMatchObject({ status: "delivered", attempt_count: 8 });
    expect(receiver.received.at(-1)?.rawBody).toBe(receiver.received[0]?.rawBody);
    expect((await payments.request("/v1/webhook_deliveries/wd_unknown", { key: testKey })).status).toBe(404);
    expect((await payments.request(`/v1/webhook_deliveries/${deliveryId}`)).status).toBe(404);
  });

  it("rotate_secret: both signatures for 24 h, then only the new one", async () => {
    const { testKey } = await payments.newMerchant();
    const endpoint = await registerEndpoint(testKey);
    const oldSecret = endpoint.secret ?? "";
    const rotated = await json<Endpoint>(
      await payments.request(`/v1/webhook_endpoints/${endpoint.id}/rotate_secret`, {
        method: "POST",
        key: testKey,
      }),
    );
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(oldSecret);
    secrets = [oldSecret];
    await createPayment(testKey);
    await payments.engine.runDue();
    const header = String(receiver.received[0]?.headers["x-service-signature"]);
    expect(header.match(/v1=/g)).toHaveLength(2);
    expect(receiver.received[0]?.verification?.isValid).toBe(true);
    expect(
      verify({
        rawBody: receiver.received[0]?.rawBody ?? "",
        header,
        secret: rotated.secret ?? "",
        now: clock.now(),
      }).isValid,
    ).toBe(true);
    clock.advance(24 * 3_600_000 + 1000);
    secrets = [rotated.secret ?? ""];
    await createPayment(testKey);
    await payments.engine.runDue();
    expect(String(receiver.received[1]?.headers["x-service-signature"]).match(/v1=/g)).toHaveLength(1);
    expect(receiver.received[1]?.verification?.isValid).toBe(true);
  });
});

describe("SSRF guard", () => {
  it("refuses private targets unless PAYMENTS_ALLOW_PRIVATE_WEBHOOKS=1", async () => {
    // Same running service with the flag off (routes read the config per request), instead of a second instance.
    payments.deps.config.allowPrivateWebhooks = false;
    try {
      for (const url of [
        "http://127.0.0.1:8080/hook",
        "http://10.0.0.8/hook",
        "http://169.254.169.254/latest",
        "http://[::1]/x",
      ]) {
        const response = await payments.request("/v1/webhook_endpoints", {
          method: "POST",
          json: { url, enabled_events: ["*"] },
        });
        expect(response.status, url).toBe(422);
        expect(await json(response)).toMatchObject({ error: { code: "invalid_webhook_url", param: "url" } });
      }
    } finally {
      payments.deps.config.allowPrivateWebhooks = true;
    }
    const allowed = await payments.request("/v1/webhook_endpoints", {
      method: "POST",
      json: { url: "http://127.0.0.1:8080/hook", enabled_events: ["*"] },
    });
    expect(allowed.status).toBe(201);
  });
});
