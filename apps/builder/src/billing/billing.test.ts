// Billing end to end: the builder and the payment service, both started for real on loopback, the
// builder acting as one of the service's merchants (HTTP with a secret key, signed webhooks, the
// events API). Webhooks go out when the test runs the service's delivery engine, so every step is
// deterministic; the two share a manual clock.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { manualClock, newSecretToken, unixSeconds } from "@app/core";
import { freePort } from "@app/testing";
import { signatureHeader } from "@app/webhooks";
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadPaymentsConfig } from "../../../payments/src/config.ts";
import { startPayments } from "../../../payments/src/start.ts";
import { json, startTestPayments, type TestPayments } from "../../../payments/test/harness.ts";
import { startTestBuilder, type TestBuilder } from "../../test/harness.ts";
import { connectPaymentService } from "./connect-payment-service.ts";
import { webhookSecrets } from "./payment-link.ts";
import { creditLedger, creditOrders, paymentServiceEvents, paymentServiceLink } from "./schema.ts";

interface Order {
  id: string;
  pack: string;
  credits: number;
  price: number;
  currency: string;
  status: string;
  payment_id: string | null;
  checkout_url: string | null;
  failure_reason: string | null;
}
interface Billing {
  balance: number;
  packs: { id: string; credits: number; price: number; currency: string }[];
  ledger: { kind: string; credits: number; order_id: string | null; details: Record<string, unknown> }[];
  orders: Order[];
}
interface Endpoint {
  id: string;
  url: string;
  status: string;
  enabled_events: string[];
}

const clock = manualClock(new Date());
const STARTER = 5_000;
let payments: TestPayments;
let builder: TestBuilder;
let cookie: string;
let webhookUrl: string;

beforeAll(async () => {
  payments = await startTestPayments({ clock });
  builder = await startTestBuilder({
    clock,
    env: {
      PAYMENTS_URL: payments.url,
      PAYMENTS_SECRET_KEY: payments.testKey,
      BILLING_STARTER_CREDITS: String(STARTER),
    },
  });
  webhookUrl = `${builder.url}/api/billing/webhook`;
  ({ cookie } = await builder.signUp());
  // The builder registers its endpoint and reconciles in the background as it starts.
  await waitFor(async () => (await link())?.reconciledAt, "the builder to link up with the payment service");
});
afterAll(async () => {
  await builder?.stop();
  await payments?.stop();
});

async function waitFor<T>(probe: () => Promise<T | null | undefined | false>, what: string): Promise<T> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

async function link() {
  const [row] = await builder.deps.db.select().from(paymentServiceLink);
  return row;
}

async function billing(as = cookie): Promise<Billing> {
  const response = await builder.request("/api/billing", { cookie: as });
  expect(response.status).toBe(200);
  return (await response.json()) as Billing;
}

async function order(id: string): Promise<Order> {
  const response = await builder.request(`/api/billing/orders/${id}`, { cookie });
  expect(response.status).toBe(200);
  return (await response.json()) as Order;
}

async function checkout(pack = "pack_50k", as = cookie) {
  const response = await builder.request("/api/billing/checkout", {
    method: "POST",
    cookie: as,
    json: { pack },
  });
  expect(response.status).toBe(201);
  return (await response.json()) as { order: Order; payment_id: string; checkout_url: string };
}

/** Runs the payment service's delivery engine once: everything due is POSTed to its endpoints now. */
const deliver = () => payments.engine.runDue();

async function endpointsForUs(): Promise<Endpoint[]> {
  const page = await json<{ data: Endpoint[] }>(await payments.request("/v1/webhook_endpoints?limit=100"));
  return page.data.filter((endpoint) => endpoint.url === webhookUrl);
}

/** The event of `type` about a payment, as stored bytes (what a webhook carries) and parsed. */
async function eventAbout(paymentId: string, type: string): Promise<{ id: string; body: string }> {
  const page = await json<{ data: { id: string; data: { object: { id: string } } }[] }>(
    await payments.request(`/v1/events?type=${type}&limit=100`),
  );
  const event = page.data.find((candidate) => candidate.data.object.id === paymentId);
  if (!event) throw new Error(`no ${type} event for ${paymentId}`);
  const body = await (await payments.request(`/v1/events/${event.id}`)).text();
  return { id: event.id, body };
}

async function deliveriesOf(eventId: string) {
  const page = await json<{ data: { id: string; status: string; last_response_status: number | null }[] }>(
    await payments.request(`/v1/webhook_deliveries?event=${eventId}`),
  );
  return page.data;
}

/**
 * What a customer does on the hosted checkout page: opens it and submits the form of `button` with
 * every hidden field it carries (and the cookies the page set, for a form token).
 */
async function pressCheckoutButton(checkoutUrl: string, button: string): Promise<URL> {
  const page = await fetch(checkoutUrl);
  expect(page.status).toBe(200);
  const html = await page.text();
  const form = [...html.matchAll(/<form\b([^>]*)>([\s\S]*?)<\/form>/g)].find((match) =>
    (match[2] ?? "").includes(`>${button}<`),
  );
  if (!form) throw new Error(`no "${button}" form on the checkout page`);
  const fields = new URLSearchParams();
  for (const input of (form[2] ?? "").matchAll(/<input\b([^>]*)>/g)) {
    const attributes = input[1] ?? "";
    if (attribute(attributes, "type") !== "hidden") continue;
    fields.append(attribute(attributes, "name") ?? "", attribute(attributes, "value") ?? "");
  }
  const cookies = page.headers
    .getSetCookie()
    .map((value) => value.split(";")[0])
    .join("; ");
  const submitted = await fetch(new URL(attribute(form[1] ?? "", "action") ?? "", checkoutUrl), {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      origin: new URL(checkoutUrl).origin,
      ...(cookies ? { cookie: cookies } : {}),
    },
    body: fields,
    redirect: "manual",
  });
  expect(submitted.status).toBe(303);
  return new URL(submitted.headers.get("location") ?? "", checkoutUrl);
}

function attribute(attributes: string, name: string): string | undefined {
  const value = new RegExp(`\\b${name}="([^"]*)"`).exec(attributes)?.[1];
  return value
    ?.replaceAll("&quot;", '"')
    .replaceAll("&#39;", "'")
    .replaceAll("&lt;", "<")
    .replaceAll("&gt;", ">")
    .replaceAll("&amp;", "&");
}

function postWebhook(body: string, signature: string | undefined) {
  return fetch(webhookUrl, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(signature ? { "x-service-signature": signature } : {}),
    },
    body,
  });
}

describe("the builder as a merchant of the payment service", () => {
  it("registered one webhook endpoint for its billing events and keeps its secret sealed", async () => {
    const endpoints = await endpointsForUs();
    expect(endpoints).toHaveLength(1);
    expect(endpoints[0]).toMatchObject({ status: "enabled" });
    expect([...(endpoints[0]?.enabled_events ?? [])].sort()).toEqual([
      "payment.expired",
      "payment.failed",
      "payment.refunded",
      "payment.succeeded",
    ]);
    const stored = await link();
    const [secret] = await webhookSecrets(builder.deps);
    expect(secret).toMatch(/^whsec_/);
    expect(stored?.endpointId).toBe(endpoints[0]?.id);
    expect(stored?.sealedSecret).toMatch(/^v1\./);
    expect(stored?.sealedSecret).not.toContain(secret?.slice(6));

    // Registering again (every start does) keeps that endpoint.
    expect(await connectPaymentService(builder.deps)).toBe("kept");
    expect((await endpointsForUs()).map((endpoint) => endpoint.id)).toEqual([endpoints[0]?.id]);
  });

  it("lists the packs in IDR and starts a new workspace with its starter credits", async () => {
    const overview = await billing();
    expect(overview.balance).toBe(STARTER);
    expect(overview.packs).toEqual([
      { id: "pack_50k", credits: 50_000, price: 50_000, currency: "IDR" },
      { id: "pack_100k", credits: 105_000, price: 100_000, currency: "IDR" },
      { id: "pack_500k", credits: 550_000, price: 500_000, currency: "IDR" },
    ]);
    expect(overview.ledger).toMatchObject([{ kind: "starter", credits: STARTER }]);
  });

  it("buy a pack → pay on the hosted checkout → webhook → the balance goes up once", async () => {
    const before = (await billing()).balance;
    const bought = await checkout("pack_50k");
    expect(bought.order).toMatchObject({
      status: "pending",
      credits: 50_000,
      price: 50_000,
      currency: "IDR",
    });
    expect(bought.checkout_url).toBe(`${payments.url}/checkout/${bought.payment_id}`);
    // The payment was created server to server, for this order, with the order id as Idempotency-Key.
    const payment = await json<{ amount: number; currency: string; metadata: Record<string, string> }>(
      await payments.request(`/v1/payments/${bought.payment_id}`),
    );
    expect(payment).toMatchObject({
      amount: 50_000,
      currency: "IDR",
      metadata: { order_id: bought.order.id },
    });

    const back = await pressCheckoutButton(bought.checkout_url, "Simulate payment");
    // The checkout sends the customer back to the studio's billing page for this order.
    expect(`${back.origin}${back.pathname}`).toBe(`${builder.url}/billing`);
    expect(back.searchParams.get("order")).toBe(bought.order.id);
    expect(back.searchParams.get("payment_id")).toBe(bought.payment_id);
    expect((await billing()).balance).toBe(before);
    await deliver();

    const after = await billing();
    expect(after.balance).toBe(before + 50_000);
    // The credits are also an event of the workspace (GET /api/events and its webhooks).
    const events = (await (
      await builder.request("/api/events?type=billing.credits.added", { cookie })
    ).json()) as { data: { data: { object: { order_id: string | null; credits: number } } }[] };
    expect(events.data.map((event) => event.data.object)).toEqual(
      expect.arrayContaining([expect.objectContaining({ order_id: bought.order.id, credits: 50_000 })]),
    );
    expect(await order(bought.order.id)).toMatchObject({ status: "paid", payment_id: bought.payment_id });
    expect(after.ledger.filter((entry) => entry.order_id === bought.order.id)).toMatchObject([
      { kind: "purchase", credits: 50_000 },
    ]);

    // The same webhook delivered again (a replay from the payment service) is acknowledged, not applied.
    const succeeded = await eventAbout(bought.payment_id, "payment.succeeded");
    const [delivery] = await deliveriesOf(succeeded.id);
    expect(delivery).toMatchObject({ status: "delivered", last_response_status: 200 });
    const replayed = await payments.request(`/v1/webhook_deliveries/${delivery?.id}/replay`, {
      method: "POST",
    });
    expect(replayed.status).toBe(200);
    await deliver();
    const attempts = await json<{ attempts: { response_status: number; response_body: string }[] }>(
      await payments.request(`/v1/webhook_deliveries/${delivery?.id}`),
    );
    expect(
      attempts.attempts.map((attempt) => [
        attempt.response_status,
        JSON.parse(attempt.response_body).outcome,
      ]),
    ).toEqual(
      expect.arrayContaining([
        [200, "applied"],
        [200, "duplicate"],
      ]),
    );
    expect((await billing()).balance).toBe(before + 50_000);
  });

  it("refuses deliveries that do not verify (tampered, wrong secret, 301 s old, no header) and credits nothing", async () => {
    const before = (await billing()).balance;
    const bought = await checkout("pack_100k");
    await payments.request(`/v1/test_helpers/payments/${bought.payment_id}/succeed`, { method: "POST" });
    const event = await eventAbout(bought.payment_id, "payment.succeeded");
    const [secret] = await webhookSecrets(builder.deps);
    if (!secret) throw new Error("no secret");
    const now = unixSeconds(clock.now());

    const tampered = event.body.replace('"amount":100000', '"amount":1000000');
    expect(tampered).not.toBe(event.body);
    const refusals = [
      await postWebhook(tampered, signatureHeader([secret], event.body, now)),
      await postWebhook(event.body, signatureHeader(["whsec_not-the-endpoint-secret"], event.body, now)),
      await postWebhook(event.body, signatureHeader([secret], event.body, now - 301)),
      await postWebhook(event.body, signatureHeader([secret], event.body, now + 301)),
      await postWebhook(event.body, undefined),
      await postWebhook(event.body, `t=${now},v1=`),
    ];
    for (const refused of refusals) {
      expect(refused.status).toBe(400);
      expect(await refused.json()).toMatchObject({ error: { code: "invalid_signature" } });
    }
    expect((await billing()).balance).toBe(before);
    expect(await order(bought.order.id)).toMatchObject({ status: "pending" });

    // The same bytes, signed with the endpoint's secret 300 s ago (the edge of the window), are applied.
    const accepted = await postWebhook(event.body, signatureHeader([secret], event.body, now - 300));
    expect(accepted.status).toBe(200);
    expect(await accepted.json()).toEqual({ received: true, outcome: "applied" });
    expect((await billing()).balance).toBe(before + 105_000);

    // The service's own delivery of that event comes after: acknowledged as a duplicate, credited once.
    await deliver();
    const [delivery] = await deliveriesOf(event.id);
    expect(delivery).toMatchObject({ status: "delivered", last_response_status: 200 });
    expect((await billing()).balance).toBe(before + 105_000);
  });

  it("a refund debits what the pack credited", async () => {
    const bought = await checkout("pack_50k");
    await payments.request(`/v1/test_helpers/payments/${bought.payment_id}/succeed`, { method: "POST" });
    await deliver();
    const paid = (await billing()).balance;
    clock.advance(1_000);
    const refund = await json<{ id: string }>(
      await payments.request("/v1/refunds", { method: "POST", json: { payment: bought.payment_id } }),
    );
    await payments.request(`/v1/test_helpers/refunds/${refund.id}/succeed`, { method: "POST" });
    await deliver();

    const after = await billing();
    expect(after.balance).toBe(paid - 50_000);
    expect(await order(bought.order.id)).toMatchObject({ status: "refunded" });
    expect(after.ledger.filter((entry) => entry.order_id === bought.order.id)).toMatchObject([
      { kind: "refund", credits: -50_000 },
      { kind: "purchase", credits: 50_000 },
    ]);
    // The balance read is the one the ledger's trigger keeps: it equals the ledger's sum.
    const [entries] = await builder.deps.db
      .select({ credits: sql<string>`sum(${creditLedger.credits})` })
      .from(creditLedger)
      .where(
        eq(
          creditLedger.workspaceId,
          sql`(select ${creditOrders.workspaceId} from ${creditOrders} where ${creditOrders.id} = ${bought.order.id})`,
        ),
      );
    expect(Number(entries?.credits)).toBe(after.balance);
  });

  it("a failed payment and an expired one close their orders and credit nothing", async () => {
    const before = (await billing()).balance;
    const failing = await checkout("pack_50k");
    await pressCheckoutButton(failing.checkout_url, "Simulate failure");
    const expiring = await checkout("pack_500k");
    await payments.request(`/v1/test_helpers/payments/${expiring.payment_id}/expire`, { method: "POST" });
    await deliver();

    expect(await order(failing.order.id)).toMatchObject({
      status: "failed",
      failure_reason: "simulated_failure",
    });
    expect(await order(expiring.order.id)).toMatchObject({ status: "expired" });
    expect((await billing()).balance).toBe(before);
  });

  it("records and ignores events about payments that are no order of ours", async () => {
    const before = (await billing()).balance;
    const foreign = await json<{ id: string }>(
      await payments.request("/v1/payments", { method: "POST", json: { amount: 75_000, method: "qris" } }),
    );
    await payments.request(`/v1/test_helpers/payments/${foreign.id}/succeed`, { method: "POST" });
    await deliver();

    const event = await eventAbout(foreign.id, "payment.succeeded");
    expect(await deliveriesOf(event.id)).toMatchObject([{ status: "delivered", last_response_status: 200 }]);
    const [recorded] = await builder.deps.db
      .select()
      .from(paymentServiceEvents)
      .where(eq(paymentServiceEvents.id, event.id));
    expect(recorded).toMatchObject({ outcome: "unknown_order", orderId: null, source: "webhook" });
    expect((await billing()).balance).toBe(before);
  });

  it("keeps each workspace's orders to itself", async () => {
    const stranger = await builder.signUp();
    const mine = await checkout("pack_50k");
    const theirs = await builder.request(`/api/billing/orders/${mine.order.id}`, { cookie: stranger.cookie });
    expect(theirs.status).toBe(404);
    expect((await billing(stranger.cookie)).orders).toEqual([]);
    const unknown = await builder.request("/api/billing/checkout", {
      method: "POST",
      cookie,
      json: { pack: "pack_1m" },
    });
    expect(unknown.status).toBe(422);
    expect(await unknown.json()).toMatchObject({ error: { code: "unknown_pack", param: "pack" } });
  });

  it("a payment made while the receiver is down is credited by the reconciler when it comes back", async () => {
    const before = (await billing()).balance;
    const bought = await checkout("pack_50k");
    let eventId = "";
    await builder.restart(async () => {
      await payments.request(`/v1/test_helpers/payments/${bought.payment_id}/succeed`, { method: "POST" });
      await deliver();
      eventId = (await eventAbout(bought.payment_id, "payment.succeeded")).id;
      // The delivery failed: the builder was not listening.
      expect(await deliveriesOf(eventId)).toMatchObject([{ status: "retrying" }]);
      clock.advance(1_000);
    });
    // On start the reconciler reads the events API from its cursor and applies what it missed.
    await waitFor(
      async () => (await order(bought.order.id)).status === "paid",
      "the reconciler to credit the order",
    );
    await waitFor(
      async () => (await link())?.reconciledAt?.getTime() === clock.now().getTime(),
      "the reconciliation pass to finish",
    );
    expect((await billing()).balance).toBe(before + 50_000);
    const [applied] = await builder.deps.db
      .select()
      .from(paymentServiceEvents)
      .where(eq(paymentServiceEvents.id, eventId));
    expect(applied).toMatchObject({ source: "reconciler", outcome: "applied" });

    // The service's retry arrives later: acknowledged, and the pack is not credited twice.
    clock.advance(61_000);
    await deliver();
    expect(await deliveriesOf(eventId)).toMatchObject([{ status: "delivered", last_response_status: 200 }]);
    expect((await billing()).balance).toBe(before + 50_000);
    expect(await endpointsForUs()).toHaveLength(1);
  });

  it("adopts the endpoint registered for its URL when its own record is lost, with a new secret", async () => {
    const [endpoint] = await endpointsForUs();
    await builder.deps.db.update(paymentServiceLink).set({ endpointId: null, sealedSecret: null });
    expect(await webhookSecrets(builder.deps)).toEqual([]);
    expect(await connectPaymentService(builder.deps)).toBe("rotated");
    expect((await endpointsForUs()).map((candidate) => candidate.id)).toEqual([endpoint?.id]);

    const before = (await billing()).balance;
    const bought = await checkout("pack_50k");
    await payments.request(`/v1/test_helpers/payments/${bought.payment_id}/succeed`, { method: "POST" });
    await deliver();
    expect((await billing()).balance).toBe(before + 50_000);
  });
});

describe("the local wiring (npm start)", () => {
  it("starts before the payment service is up, and links up once the service bootstraps its key", async () => {
    const port = await freePort();
    const key = newSecretToken("sk_test");
    const paymentsUrl = `http://127.0.0.1:${port}`;
    const late = await startTestBuilder({ env: { PAYMENTS_URL: paymentsUrl, PAYMENTS_SECRET_KEY: key } });
    const dataDir = mkdtempSync(join(tmpdir(), "payments-late-"));
    let service: Awaited<ReturnType<typeof startPayments>> | undefined;
    try {
      // The builder answers, and says so plainly when the payment service cannot be reached.
      const user = await late.signUp();
      expect((await late.request("/api/billing", { cookie: user.cookie })).status).toBe(200);
      const early = await late.request("/api/billing/checkout", {
        method: "POST",
        cookie: user.cookie,
        json: { pack: "pack_50k" },
      });
      expect(early.status).toBe(502);
      expect(await early.json()).toMatchObject({ error: { code: "payment_service_failed" } });

      // The service as `npm start` runs it: the merchant bootstrapped from the shared key, deliveries in-process.
      service = await startPayments(
        loadPaymentsConfig({
          PAYMENTS_PORT: String(port),
          DATA_DIR: dataDir,
          PAYMENTS_SECRET_KEY: key,
          PAYMENTS_ALLOW_PRIVATE_WEBHOOKS: "1",
          PAYMENTS_PUBLIC_URL: paymentsUrl,
          LOG_LEVEL: process.env.LOG_LEVEL ?? "silent",
        }),
      );
      await waitFor(async () => {
        const [row] = await late.deps.db.select().from(paymentServiceLink);
        return row?.endpointId && row.reconciledAt;
      }, "the builder to register once the payment service is up");

      const bought = await late.request("/api/billing/checkout", {
        method: "POST",
        cookie: user.cookie,
        json: { pack: "pack_50k" },
      });
      expect(bought.status).toBe(201);
      const { order, payment_id } = (await bought.json()) as { order: Order; payment_id: string };
      const paid = await fetch(`${paymentsUrl}/v1/test_helpers/payments/${payment_id}/succeed`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}` },
      });
      expect(paid.status).toBe(200);
      await waitFor(async () => {
        const response = await late.request(`/api/billing/orders/${order.id}`, { cookie: user.cookie });
        return ((await response.json()) as Order).status === "paid";
      }, "the service's own delivery worker to deliver payment.succeeded");
      const overview = (await (
        await late.request("/api/billing", { cookie: user.cookie })
      ).json()) as Billing;
      expect(overview.balance).toBe(STARTER + 50_000);
    } finally {
      await late.stop();
      await service?.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
    // Starts a payment service and a second builder: more than the default 30 s on a busy machine.
  }, 120_000);
});
