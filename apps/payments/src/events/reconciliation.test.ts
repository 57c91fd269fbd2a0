import { startTestReceiver, type TestReceiver } from "@app/webhooks/testing";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { json, startTestPayments, type TestPayments } from "../../test/harness.ts";
import { events } from "../db/schema.ts";

/** Fixed by the issue: eight concurrent writers. */
const WRITERS = 8;
const PAYMENTS_PER_WRITER = 25;

type EventList = { data: { id: string; type: string }[]; has_more: boolean };

let payments: TestPayments;
let receiver: TestReceiver;
let merchant: { merchantId: string; testKey: string };
let secret = "";

beforeAll(async () => {
  payments = await startTestPayments();
  receiver = await startTestReceiver({ secrets: () => [secret] });
  merchant = await payments.newMerchant("Reconciling merchant");
});
afterAll(async () => {
  await receiver?.close();
  await payments?.stop();
});

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The merchant's side: an idempotent handler keyed by event id, and the highest id applied. */
class MerchantStore {
  applied = new Map<string, number>();
  offered = 0;
  highestId: string | undefined;
  apply(id: string): void {
    this.offered += 1;
    this.applied.set(id, (this.applied.get(id) ?? 0) + 1);
  }
}

/** Exactly the seed's routine: starting_after=<highest id>, walk each page in reverse, repeat while has_more and data. */
async function reconcile(store: MerchantStore, limit: number): Promise<void> {
  for (;;) {
    const query = new URLSearchParams({ limit: String(limit) });
    if (store.highestId) query.set("starting_after", store.highestId);
    const response = await payments.request(`/v1/events?${query}`, { key: merchant.testKey });
    expect(response.status).toBe(200);
    const page = await json<EventList>(response);
    for (const event of [...page.data].reverse()) {
      store.apply(event.id);
      store.highestId = event.id;
    }
    if (!page.has_more || page.data.length === 0) return;
  }
}

it("a receiver that was down catches up with the seed's routine while 8 writers keep creating events, missing none", {
  timeout: 120_000,
}, async () => {
  const store = new MerchantStore();
  const endpoint = await json<{ secret: string }>(
    await payments.request("/v1/webhook_endpoints", {
      method: "POST",
      key: merchant.testKey,
      json: { url: receiver.url, enabled_events: ["*"] },
    }),
  );
  secret = endpoint.secret;

  // While up, the receiver applies what webhooks bring and remembers the highest id.
  for (let i = 0; i < 5; i++) {
    await payments.request("/v1/payments", {
      method: "POST",
      key: merchant.testKey,
      json: { amount: 1000, method: "qris" },
    });
  }
  await payments.engine.runDue();
  for (const delivery of receiver.received) {
    expect(delivery.verification?.isValid).toBe(true);
    store.apply(delivery.event.id);
    if (!store.highestId || delivery.event.id > store.highestId) store.highestId = delivery.event.id;
  }
  expect(store.applied.size).toBe(5);

  // Then it goes down: deliveries fail, and the merchant polls instead while writers keep going.
  receiver.respondWith(() => 503);
  let isWriting = true;
  const writers = Array.from({ length: WRITERS }, async (_, writer) => {
    for (let i = 0; i < PAYMENTS_PER_WRITER; i++) {
      const response = await payments.request("/v1/payments", {
        method: "POST",
        key: merchant.testKey,
        json: { amount: 1000 + writer, method: i % 2 ? "qris" : "ewallet" },
      });
      expect(response.status).toBe(201);
      if (i % 3 === 0) {
        const { id } = await json<{ id: string }>(response);
        await payments.request(`/v1/test_helpers/payments/${id}/succeed`, {
          method: "POST",
          key: merchant.testKey,
        });
      }
    }
  });
  const deliveries = (async () => {
    while (isWriting) {
      await payments.engine.runDue();
      await pause(20);
    }
  })();
  let polls = 0;
  const poller = (async () => {
    while (isWriting) {
      await reconcile(store, 10);
      polls += 1;
      await pause(5);
    }
  })();
  await Promise.all(writers);
  isWriting = false;
  await poller;
  await deliveries;
  await reconcile(store, 10);

  const all = await payments.deps.db
    .select({ id: events.id })
    .from(events)
    .where(eq(events.ownerId, merchant.merchantId));
  const missing = all.filter((event) => !store.applied.has(event.id));
  const twice = [...store.applied.values()].filter((count) => count > 1).length;
  console.log(
    `reconciliation: ${all.length} events, ${polls} concurrent polls, ${store.offered} applied, ${missing.length} missing, ${twice} offered twice`,
  );
  expect(all.length).toBe(
    5 + WRITERS * PAYMENTS_PER_WRITER + 2 * WRITERS * Math.ceil(PAYMENTS_PER_WRITER / 3),
  );
  expect(missing).toEqual([]);
  expect(store.applied.size).toBe(all.length);
  // The routine never hands an event over twice: every id was applied exactly once.
  expect(twice).toBe(0);
  expect(polls).toBeGreaterThan(0);
});
