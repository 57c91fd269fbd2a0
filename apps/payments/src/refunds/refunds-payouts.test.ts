import { manualClock } from "@app/core";
import { and, asc, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { json, startTestPayments, type TestPayments } from "../../test/harness.ts";
import { runSweeps } from "../jobs.ts";
import { ledgerEntries } from "../ledger/schema.ts";

/**
 * On a shared PostgreSQL an event is listed once the cluster's older transactions end (see
 * "Ordering" in docs/payments.md), which other test files' work can delay: lists are awaited.
 */
const EVENTS_VISIBLE = { timeout: 15_000, interval: 100 };

type Obj = { id: string; status: string; amount: number; amount_refunded?: number };
type EventList = { data: { id: string; type: string; data: { object: { id: string } } }[] };

const clock = manualClock(new Date("2026-03-01T08:00:00Z"));
let payments: TestPayments;
beforeAll(async () => {
  payments = await startTestPayments({ clock });
});
afterAll(() => payments?.stop());

const post = (path: string, body?: unknown) =>
  payments.request(path, { method: "POST", ...(body === undefined ? {} : { json: body }) });

async function balance(): Promise<number> {
  const body = await json<{ available: { amount: number; currency: string }[] }>(
    await payments.request("/v1/balance"),
  );
  return body.available.find((entry) => entry.currency === "IDR")?.amount ?? 0;
}

async function succeededPayment(amount = 100000): Promise<Obj> {
  clock.advance(1);
  const payment = await json<Obj>(await post("/v1/payments", { amount, method: "qris" }));
  await post(`/v1/test_helpers/payments/${payment.id}/succeed`);
  return payment;
}

async function eventTypesFor(id: string): Promise<string[]> {
  const body = await json<EventList>(await payments.request("/v1/events?limit=100"));
  return body.data
    .filter((event) => event.data.object.id === id)
    .map((event) => event.type)
    .reverse();
}

describe("refunds", () => {
  it("partial refund: pending, then succeeded debits the ledger and emits refund.succeeded", async () => {
    const payment = await succeededPayment();
    const start = await balance();
    const created = await post("/v1/refunds", { payment: payment.id, amount: 30000 });
    expect(created.status).toBe(201);
    const refund = await json<Obj>(created);
    expect(refund).toMatchObject({ status: "pending", amount: 30000 });
    expect(await balance()).toBe(start);
    const settled = await post(`/v1/test_helpers/refunds/${refund.id}/succeed`);
    expect(await json(settled)).toMatchObject({ status: "succeeded" });
    expect(await balance()).toBe(start - 30000);
    await expect.poll(() => eventTypesFor(refund.id), EVENTS_VISIBLE).toEqual(["refund.succeeded"]);
    expect(await json(await payments.request(`/v1/payments/${payment.id}`))).toMatchObject({
      status: "succeeded",
      amount_refunded: 30000,
    });
  });

  it("a failed refund emits refund.failed, leaves the ledger, and frees the amount again", async () => {
    const payment = await succeededPayment();
    const start = await balance();
    const refund = await json<Obj>(await post("/v1/refunds", { payment: payment.id }));
    expect(refund.amount).toBe(100000);
    expect((await post("/v1/refunds", { payment: payment.id, amount: 1 })).status).toBe(422);
    expect(await json(await post(`/v1/test_helpers/refunds/${refund.id}/fail`))).toMatchObject({
      status: "failed",
    });
    await expect.poll(() => eventTypesFor(refund.id), EVENTS_VISIBLE).toEqual(["refund.failed"]);
    expect(await balance()).toBe(start);
    expect((await post("/v1/refunds", { payment: payment.id, amount: 1 })).status).toBe(201);
  });

  it("refunds adding up to the full amount move the payment to refunded (payment.refunded)", async () => {
    const payment = await succeededPayment();
    const start = await balance();
    const first = await json<Obj>(await post("/v1/refunds", { payment: payment.id, amount: "60000.00" }));
    await post(`/v1/test_helpers/refunds/${first.id}/succeed`);
    const over = await post("/v1/refunds", { payment: payment.id, amount: 40000.01 });
    expect(over.status).toBe(422);
    expect(await json(over)).toMatchObject({ error: { code: "amount_exceeds_refundable", param: "amount" } });
    const rest = await json<Obj>(await post("/v1/refunds", { payment: payment.id }));
    expect(rest.amount).toBe(40000);
    await post(`/v1/test_helpers/refunds/${rest.id}/succeed`);
    expect(await json(await payments.request(`/v1/payments/${payment.id}`))).toMatchObject({
      status: "refunded",
      amount_refunded: 100000,
    });
    await expect
      .poll(() => eventTypesFor(payment.id), EVENTS_VISIBLE)
      .toEqual(["payment.pending", "payment.processing", "payment.succeeded", "payment.refunded"]);
    // The fee is not returned: the merchant received 99,300 and paid back 100,000.
    expect(await balance()).toBe(start - 100000);
    const again = await post("/v1/refunds", { payment: payment.id, amount: 1 });
    expect(again.status).toBe(409);
    expect(await json(again)).toMatchObject({ error: { code: "payment_not_refundable" } });
  });

  it("refuses refunds of payments that have not succeeded", async () => {
    clock.advance(1);
    const pending = await json<Obj>(await post("/v1/payments", { amount: 1000, method: "qris" }));
    expect((await post("/v1/refunds", { payment: pending.id })).status).toBe(409);
    expect((await post("/v1/refunds", { payment: "pay_unknown" })).status).toBe(404);
  });

  it("answers every move of a settled refund with 409 invalid_refund_transition and changes nothing", async () => {
    const payment = await succeededPayment();
    const succeeded = await json<Obj>(await post("/v1/refunds", { payment: payment.id, amount: 10 }));
    await post(`/v1/test_helpers/refunds/${succeeded.id}/succeed`);
    const failed = await json<Obj>(await post("/v1/refunds", { payment: payment.id, amount: 20 }));
    await post(`/v1/test_helpers/refunds/${failed.id}/fail`);
    const start = await balance();
    const paymentBefore = await json(await payments.request(`/v1/payments/${payment.id}`));
    for (const [refund, status] of [
      [succeeded, "succeeded"],
      [failed, "failed"],
    ] as const) {
      const refundBefore = await json(await payments.request(`/v1/refunds/${refund.id}`));
      expect(refundBefore).toMatchObject({ status });
      for (const action of ["succeed", "fail"]) {
        const response = await post(`/v1/test_helpers/refunds/${refund.id}/${action}`);
        expect(response.status, `${action} on a ${status} refund`).toBe(409);
        expect(await json(response)).toMatchObject({
          error: { type: "conflict", code: "invalid_refund_transition", message: expect.any(String) },
        });
      }
      expect(await json(await payments.request(`/v1/refunds/${refund.id}`))).toEqual(refundBefore);
      await expect.poll(() => eventTypesFor(refund.id), EVENTS_VISIBLE).toEqual([`refund.${status}`]);
    }
    expect(await balance()).toBe(start);
    expect(await json(await payments.request(`/v1/payments/${payment.id}`))).toEqual(paymentBefore);
  });

  it("the simulated provider settles pending refunds after 5 s", async () => {
    const payment = await succeededPayment();
    const refund = await json<Obj>(await post("/v1/refunds", { payment: payment.id, amount: 500 }));
    await runSweeps(payments.deps);
    expect(await json(await payments.request(`/v1/refunds/${refund.id}`))).toMatchObject({
      status: "pending",
    });
    clock.advance(5_000);
    await runSweeps(payments.deps);
    expect(await json(await payments.request(`/v1/refunds/${refund.id}`))).toMatchObject({
      status: "succeeded",
    });
  });
});

describe("payouts and the ledger", () => {
  const destination = { bank_code: "BCA", account_number: "1234567890", account_name: "Toko Kopi" };

  it("debits at once, refuses more than the balance, reverses a failed payout with a new entry", async () => {
    const merchant = await payments.newMerchant("Payout merchant");
    const as = (path: string, body?: unknown) =>
      payments.request(path, {
        method: "POST",
        key: merchant.testKey,
        ...(body === undefined ? {} : { json: body }),
      });
    const balanceOf = async () => {
      const body = await json<{ available: { amount: number }[] }>(
        await payments.request("/v1/balance", { key: merchant.testKey }),
      );
      return body.available[0]?.amount ?? 0;
    };
    expect(await balanceOf()).toBe(0);
    expect((await as("/v1/payouts", { amount: 1, destination })).status).toBe(422);
    clock.advance(1);
    const payment = await json<Obj>(await as("/v1/payments", { amount: 200000, method: "virtual_account" }));
    await as(`/v1/test_helpers/payments/${payment.id}/succeed`);
    expect(await balanceOf()).toBe(196000);

    const tooMuch = await as("/v1/payouts", { amount: 196000.01, destination });
    expect(tooMuch.status).toBe(422);
    expect(await json(tooMuch)).toMatchObject({ error: { code: "insufficient_balance", param: "amount" } });

    const failing = await json<Obj>(await as("/v1/payouts", { amount: 100000, destination }));
    expect(failing.status).toBe("pending");
    expect(await balanceOf()).toBe(96000);
    const succeeding = await json<Obj>(await as("/v1/payouts", { amount: 90000, destination }));
    expect(await balanceOf()).toBe(6000);
    expect((await as("/v1/payouts", { amount: 6000.01, destination })).status).toBe(422);

    expect(await json(await as(`/v1/test_helpers/payouts/${failing.id}/fail`))).toMatchObject({
      status: "failed",
    });
    expect(await balanceOf()).toBe(106000);
    expect(await json(await as(`/v1/test_helpers/payouts/${succeeding.id}/succeed`))).toMatchObject({
      status: "succeeded",
    });
    expect(await balanceOf()).toBe(106000);
    for (const id of [failing.id, succeeding.id]) {
      for (const action of ["succeed", "fail"]) {
        const response = await as(`/v1/test_helpers/payouts/${id}/${action}`);
        expect(response.status).toBe(409);
        expect(await json(response)).toMatchObject({ error: { code: "invalid_payout_transition" } });
      }
    }
    expect(await balanceOf()).toBe(106000);

    const events = await json<EventList>(
      await payments.request("/v1/events?limit=100", { key: merchant.testKey }),
    );
    expect(
      events.data.filter((e) => e.type.startsWith("payout.")).map((e) => [e.type, e.data.object.id]),
    ).toEqual([
      ["payout.succeeded", succeeding.id],
      ["payout.failed", failing.id],
    ]);
    // Append-only: the failed payout's debit is still there, reversed by a later entry.
    const entries = await payments.deps.db
      .select()
      .from(ledgerEntries)
      .where(and(eq(ledgerEntries.merchantId, merchant.merchantId), eq(ledgerEntries.sourceId, failing.id)))
      .orderBy(asc(ledgerEntries.kind));
    expect(entries.map((entry) => [entry.kind, entry.amount])).toEqual([
      ["payout", -10_000_000n],
      ["payout_reversal", 10_000_000n],
    ]);
  });

  it("the simulated bank settles pending payouts after 30 s; concurrent payouts cannot overspend", async () => {
    const merchant = await payments.newMerchant("Concurrent payouts");
    const as = (path: string, body?: unknown) =>
      payments.request(path, {
        method: "POST",
        key: merchant.testKey,
        ...(body === undefined ? {} : { json: body }),
      });
    clock.advance(1);
    const payment = await json<Obj>(await as("/v1/payments", { amount: 104000, method: "virtual_account" }));
    await as(`/v1/test_helpers/payments/${payment.id}/succeed`);
    const results = await Promise.all(
      Array.from({ length: 6 }, () => as("/v1/payouts", { amount: 40000, destination })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 201, 422, 422, 422, 422]);
    const created = await Promise.all(results.filter((r) => r.status === 201).map((r) => json<Obj>(r)));
    clock.advance(30_000);
    await runSweeps(payments.deps);
    for (const payout of created) {
      expect(
        await json(await payments.request(`/v1/payouts/${payout.id}`, { key: merchant.testKey })),
      ).toMatchObject({
        status: "succeeded",
      });
    }
    const body = await json<{ available: { amount: number }[] }>(
      await payments.request("/v1/balance", { key: merchant.testKey }),
    );
    expect(body.available[0]?.amount).toBe(20000);
  });
});
