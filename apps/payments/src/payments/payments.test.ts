import { manualClock } from "@app/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { json, startTestPayments, type TestPayments } from "../../test/harness.ts";
import { runSweeps } from "../jobs.ts";

/**
 * On a shared PostgreSQL an event is listed once the cluster's older transactions end (see
 * "Ordering" in docs/payments.md), which other test files' work can delay: lists are awaited.
 */
const EVENTS_VISIBLE = { timeout: 15_000, interval: 100 };

type Payment = { id: string; status: string; amount: number; fee_amount: number; net_amount: number };
type EventList = {
  data: { id: string; type: string; data: { object: { id: string; status: string } } }[];
  has_more: boolean;
};

const clock = manualClock(new Date("2026-03-01T08:00:00Z"));
let payments: TestPayments;
beforeAll(async () => {
  payments = await startTestPayments({ clock });
});
afterAll(() => payments?.stop());

async function createPayment(body: Record<string, unknown> = {}): Promise<Payment> {
  // Ids sort by creation time at millisecond resolution; the manual clock would otherwise stand still.
  clock.advance(1);
  const response = await payments.request("/v1/payments", {
    method: "POST",
    json: { amount: 100000, method: "qris", ...body },
  });
  expect(response.status).toBe(201);
  return json<Payment>(response);
}

function helper(id: string, action: string, key?: string) {
  return payments.request(`/v1/test_helpers/payments/${id}/${action}`, {
    method: "POST",
    ...(key ? { key } : {}),
  });
}

async function balance(): Promise<number> {
  const body = await json<{ available: { amount: number; currency: string }[] }>(
    await payments.request("/v1/balance"),
  );
  return body.available.find((entry) => entry.currency === "IDR")?.amount ?? 0;
}

/** The event types recorded for one payment, oldest first, and each event's snapshot status. */
async function eventsOf(paymentId: string): Promise<string[]> {
  const body = await json<EventList>(await payments.request("/v1/events?limit=100"));
  return body.data
    .filter((event) => event.data.object.id === paymentId)
    .reverse()
    .map((event) => {
      expect(`payment.${event.data.object.status}`).toBe(event.type);
      return event.type;
    });
}

describe("payment state machine", () => {
  it("creates a pending payment with the provider, fee and net of its method, and a payment.pending event", async () => {
    const qris = await createPayment({ amount: "150000.50" });
    expect(qris).toMatchObject({
      status: "pending",
      amount: 150000.5,
      provider: "sim-qris",
      fee_amount: 1050,
      net_amount: 148950.5,
    });
    const va = await createPayment({ method: "virtual_account", amount: 50000 });
    expect(va).toMatchObject({ provider: "sim-va", fee_amount: 4000, net_amount: 46000 });
    await expect.poll(() => eventsOf(qris.id), EVENTS_VISIBLE).toEqual(["payment.pending"]);
  });

  it("pending → processing → succeeded credits the ledger with the net amount", async () => {
    const before = await balance();
    const payment = await createPayment();
    const processing = await helper(payment.id, "process");
    expect(await json(processing)).toMatchObject({ status: "processing" });
    expect(await balance()).toBe(before);
    const succeeded = await helper(payment.id, "succeed");
    expect(await json(succeeded)).toMatchObject({ status: "succeeded" });
    expect(await balance()).toBe(before + 99300);
    await expect
      .poll(() => eventsOf(payment.id), EVENTS_VISIBLE)
      .toEqual(["payment.pending", "payment.processing", "payment.succeeded"]);
  });

  it("the succeed helper from pending passes through processing, with both events", async () => {
    const before = await balance();
    const payment = await createPayment();
    expect(await json(await helper(payment.id, "succeed"))).toMatchObject({ status: "succeeded" });
    await expect
      .poll(() => eventsOf(payment.id), EVENTS_VISIBLE)
      .toEqual(["payment.pending", "payment.processing", "payment.succeeded"]);
    expect(await balance()).toBe(before + 99300);
  });

  it("pending → failed and processing → failed, without touching the ledger", async () => {
    const before = await balance();
    const fromPending = await createPayment();
    expect(await json(await helper(fromPending.id, "fail"))).toMatchObject({
      status: "failed",
      failure_reason: "simulated_failure",
    });
    const fromProcessing = await createPayment();
    await helper(fromProcessing.id, "process");
    expect(await json(await helper(fromProcessing.id, "fail"))).toMatchObject({ status: "failed" });
    await expect
      .poll(() => eventsOf(fromPending.id), EVENTS_VISIBLE)
      .toEqual(["payment.pending", "payment.failed"]);
    await expect
      .poll(() => eventsOf(fromProcessing.id), EVENTS_VISIBLE)
      .toEqual(["payment.pending", "payment.processing", "payment.failed"]);
    expect(await balance()).toBe(before);
  });

  it("pending → expired by the helper and by the sweeper once expires_at has passed", async () => {
    const byHelper = await createPayment();
    expect(await json(await helper(byHelper.id, "expire"))).toMatchObject({ status: "expired" });
    const bySweeper = await createPayment({ expires_in: 600 });
    const paidInTime = await createPayment({ expires_in: 600 });
    await helper(paidInTime.id, "process");
    clock.advance(599_000);
    await runSweeps(payments.deps);
    expect(await json(await payments.request(`/v1/payments/${bySweeper.id}`))).toMatchObject({
      status: "pending",
    });
    clock.advance(1_000);
    await runSweeps(payments.deps);
    expect(await json(await payments.request(`/v1/payments/${bySweeper.id}`))).toMatchObject({
      status: "expired",
    });
    expect(await json(await payments.request(`/v1/payments/${paidInTime.id}`))).toMatchObject({
      status: "processing",
    });
    await expect
      .poll(() => eventsOf(bySweeper.id), EVENTS_VISIBLE)
      .toEqual(["payment.pending", "payment.expired"]);
  });

  it("refuses a customer payment after the checkout window, even before the sweeper ran", async () => {
    const payment = await createPayment({ expires_in: 60 });
    clock.advance(61_000);
    const response = await helper(payment.id, "process");
    expect(response.status).toBe(409);
    expect(await json(await payments.request(`/v1/payments/${payment.id}`))).toMatchObject({
      status: "pending",
    });
  });

  it("answers every forbidden move with 409 invalid_state_transition and changes nothing", async () => {
    const processing = await createPayment();
    await helper(processing.id, "process");
    const succeeded = await createPayment();
    await helper(succeeded.id, "succeed");
    const failed = await createPayment();
    await helper(failed.id, "fail");
    const expired = await createPayment();
    await helper(expired.id, "expire");
    const refunded = await createPayment();
    await helper(refunded.id, "succeed");
    const refund = await json<{ id: string }>(
      await payments.request("/v1/refunds", { method: "POST", json: { payment: refunded.id } }),
    );
    await payments.request(`/v1/test_helpers/refunds/${refund.id}/succeed`, { method: "POST" });
    const forbidden: [Payment, string[]][] = [
      [processing, ["process", "expire"]],
      [succeeded, ["process", "succeed", "fail", "expire"]],
      [failed, ["process", "succeed", "fail", "expire"]],
      [expired, ["process", "succeed", "fail", "expire"]],
      [refunded, ["process", "succeed", "fail", "expire"]],
    ];
    // Events are listed in the order they become visible: once the last one is, all earlier ones are.
    await expect
      .poll(() => eventsOf(refunded.id), EVENTS_VISIBLE)
      .toEqual(["payment.pending", "payment.processing", "payment.succeeded", "payment.refunded"]);
    const before = await balance();
    for (const [payment, actions] of forbidden) {
      const eventsBefore = await eventsOf(payment.id);
      const stateBefore = await json(await payments.request(`/v1/payments/${payment.id}`));
      for (const action of actions) {
        const response = await helper(payment.id, action);
        expect(response.status, `${action} on ${eventsBefore.at(-1)}`).toBe(409);
        expect(await json(response)).toMatchObject({
          error: { type: "conflict", code: "invalid_state_transition", message: expect.any(String) },
        });
      }
      expect(await json(await payments.request(`/v1/payments/${payment.id}`))).toEqual(stateBefore);
      expect(await eventsOf(payment.id)).toEqual(eventsBefore);
    }
    await expect
      .poll(() => eventsOf(refunded.id), EVENTS_VISIBLE)
      .toEqual(["payment.pending", "payment.processing", "payment.succeeded", "payment.refunded"]);
    expect(await balance()).toBe(before);
  });

  it("answers 404 for another merchant's payment and 403 for helpers with a live key", async () => {
    const payment = await createPayment();
    const other = await payments.newMerchant("Other");
    expect((await payments.request(`/v1/payments/${payment.id}`, { key: other.testKey })).status).toBe(404);
    expect((await payments.request(`/v1/payments/${payment.id}`, { key: payments.liveKey })).status).toBe(
      404,
    );
    const live = await helper(payment.id, "succeed", payments.liveKey);
    expect(live.status).toBe(403);
    expect((await helper("pay_nope", "succeed")).status).toBe(404);
  });

  it("lists payments newest first, filtered by status", async () => {
    const a = await createPayment();
    const b = await createPayment();
    await helper(b.id, "fail");
    const page = await json<{ data: Payment[]; has_more: boolean }>(
      await payments.request("/v1/payments?limit=2"),
    );
    expect(page.data.map((p) => p.id)).toEqual([b.id, a.id]);
    expect(page.has_more).toBe(true);
    const failed = await json<{ data: Payment[] }>(
      await payments.request("/v1/payments?status=failed&limit=100"),
    );
    expect(failed.data.every((p) => p.status === "failed")).toBe(true);
    expect(failed.data.map((p) => p.id)).toContain(b.id);
  });
});

describe("Idempotency-Key", () => {
  it("returns the first result to a repeat, refuses the key with another body, and creates once", async () => {
    const key = `order-${Date.now()}`;
    const first = await payments.request("/v1/payments", {
      method: "POST",
      json: { amount: 25000, method: "ewallet" },
      headers: { "idempotency-key": key },
    });
    const again = await payments.request("/v1/payments", {
      method: "POST",
      json: { amount: 25000, method: "ewallet" },
      headers: { "idempotency-key": key },
    });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    const firstBody = await json<Payment>(first);
    expect((await json<Payment>(again)).id).toBe(firstBody.id);
    const different = await payments.request("/v1/payments", {
      method: "POST",
      json: { amount: 26000, method: "ewallet" },
      headers: { "idempotency-key": key },
    });
    expect(different.status).toBe(422);
    expect(await json(different)).toMatchObject({ error: { code: "idempotency_key_reused" } });
    await expect.poll(() => eventsOf(firstBody.id), EVENTS_VISIBLE).toEqual(["payment.pending"]);
    // After 24 h the key is free again.
    clock.advance(24 * 3_600_000 + 1000);
    const later = await payments.request("/v1/payments", {
      method: "POST",
      json: { amount: 25000, method: "ewallet" },
      headers: { "idempotency-key": key },
    });
    expect((await json<Payment>(later)).id).not.toBe(firstBody.id);
  });

  it("does not keep a request refused for invalid fields: the corrected request runs with the same key", async () => {
    const key = `order-fix-${Date.now()}`;
    const invalid = await payments.request("/v1/payments", {
      method: "POST",
      json: { amount: -5, method: "ewallet" },
      headers: { "idempotency-key": key },
    });
    expect(invalid.status).toBe(422);
    const corrected = await payments.request("/v1/payments", {
      method: "POST",
      json: { amount: 5000, method: "ewallet" },
      headers: { "idempotency-key": key },
    });
    expect(corrected.status).toBe(201);
    expect(corrected.headers.get("idempotent-replayed")).toBeNull();
    const replayed = await payments.request("/v1/payments", {
      method: "POST",
      json: { amount: 5000, method: "ewallet" },
      headers: { "idempotency-key": key },
    });
    expect(replayed.headers.get("idempotent-replayed")).toBe("true");
    expect((await json<Payment>(replayed)).id).toBe((await json<Payment>(corrected)).id);
  });

  it.each([
    ["malformed JSON (400)", { "content-type": "application/json" }, '{"amount": 5000,', 400],
    ["a text/plain body (415)", { "content-type": "text/plain" }, '{"amount":5000,"method":"ewallet"}', 415],
    [
      "a NUL in a field (422)",
      { "content-type": "application/json" },
      '{"amount":5000,"method":"ewallet","description":"\\u0000"}',
      422,
    ],
  ])(
    "does not keep a request refused for %s: the corrected request runs with the same key",
    async (_, headers, body, status) => {
      const key = `order-refused-${status}-${Date.now()}`;
      const refused = await payments.request("/v1/payments", {
        method: "POST",
        headers: { ...headers, "idempotency-key": key },
        body,
      });
      expect(refused.status).toBe(status);
      const corrected = await payments.request("/v1/payments", {
        method: "POST",
        json: { amount: 5000, method: "ewallet" },
        headers: { "idempotency-key": key },
      });
      expect(corrected.status).toBe(201);
      expect(corrected.headers.get("idempotent-replayed")).toBeNull();
    },
  );

  it("does not keep a request refused for its key (401 without a secret key)", async () => {
    const key = `order-unauth-${Date.now()}`;
    const refused = await payments.request("/v1/payments", {
      method: "POST",
      json: { amount: 5000, method: "ewallet" },
      headers: { "idempotency-key": key },
      key: null,
    });
    expect(refused.status).toBe(401);
    const corrected = await payments.request("/v1/payments", {
      method: "POST",
      json: { amount: 5000, method: "ewallet" },
      headers: { "idempotency-key": key },
    });
    expect(corrected.status).toBe(201);
    expect(corrected.headers.get("idempotent-replayed")).toBeNull();
  });

  it("does not keep a request refused for its permissions (403 test_mode_only with a live key)", async () => {
    const key = `order-forbidden-${Date.now()}`;
    const payment = await createPayment();
    const refused = await payments.request(`/v1/test_helpers/payments/${payment.id}/succeed`, {
      method: "POST",
      headers: { "idempotency-key": key },
      key: payments.liveKey,
    });
    expect(refused.status).toBe(403);
    const corrected = await payments.request("/v1/payments", {
      method: "POST",
      json: { amount: 5000, method: "ewallet" },
      headers: { "idempotency-key": key },
      key: payments.liveKey,
    });
    expect(corrected.status).toBe(201);
    expect(corrected.headers.get("idempotent-replayed")).toBeNull();
  });

  it("answers 409 idempotency_key_in_use while the first request with the key is still running", async () => {
    const key = `order-concurrent-${Date.now()}`;
    const body = { amount: 7000, method: "ewallet" };
    // Two requests sent at once: whichever claims the key first runs, the other must not run too.
    const [a, b] = await Promise.all(
      [0, 1].map(() =>
        payments.request("/v1/payments", { method: "POST", json: body, headers: { "idempotency-key": key } }),
      ),
    );
    const statuses = [a?.status, b?.status].sort();
    // Either the second arrived while the first ran (409) or after it (a replay of the same 201).
    if (statuses[0] === 201 && statuses[1] === 201) {
      expect((await json<Payment>(a as Response)).id).toBe((await json<Payment>(b as Response)).id);
    } else {
      expect(statuses).toEqual([201, 409]);
    }
    // Deterministically: a key claimed by a request that has not finished (no stored answer yet).
    const running = `order-running-${Date.now()}`;
    const { idempotencyKeys } = await import("../idempotency/schema.ts");
    await payments.deps.db.insert(idempotencyKeys).values({
      merchantId: payments.merchantId,
      environment: "test",
      key: running,
      requestHash: "in flight",
      createdAt: clock.now(),
      lockedAt: clock.now(),
    });
    const conflict = await payments.request("/v1/payments", {
      method: "POST",
      json: body,
      headers: { "idempotency-key": running },
    });
    expect(conflict.status).toBe(409);
    expect(await json(conflict)).toMatchObject({
      error: { type: "conflict", code: "idempotency_key_in_use" },
    });
  });

  it("treats the same JSON with another key order, whitespace or number spelling as the same request", async () => {
    const key = `order-canonical-${Date.now()}`;
    const send = (body: string) =>
      payments.request("/v1/payments", {
        method: "POST",
        headers: { "content-type": "application/json", "idempotency-key": key },
        body,
      });
    const first = await send('{"amount":8100,"method":"ewallet","metadata":{"a":"1","b":"2"}}');
    expect(first.status).toBe(201);
    const created = await json<Payment>(first);
    for (const body of [
      '{ "method": "ewallet",\n  "metadata": { "b": "2", "a": "1" },\n  "amount": 8100 }',
      '{"metadata":{"b":"2","a":"1"},"amount":8100.0,"method":"ewallet"}',
      '{"amount":8.1e3,"method":"ewallet","metadata":{"a":"1","b":"2"}}',
    ]) {
      const again = await send(body);
      expect(again.status, body).toBe(201);
      expect(again.headers.get("idempotent-replayed")).toBe("true");
      expect((await json<Payment>(again)).id).toBe(created.id);
    }
    // Another value is another request, however it is spelled.
    const other = await send('{ "method": "ewallet", "metadata": { "a": "1", "b": "3" }, "amount": 8100 }');
    expect(other.status).toBe(422);
    expect(await json(other)).toMatchObject({ error: { code: "idempotency_key_reused" } });
  });

  it("answers 20 requests sent at once with one key: one runs (201), those that came while it ran get 409, later ones its replay", async () => {
    const key = `order-burst-${Date.now()}`;
    const body = { amount: 8200, method: "qris", description: key };
    // Connections opened beforehand, so the 20 arrive together rather than one TCP handshake apart.
    await Promise.all(Array.from({ length: 20 }, () => payments.request("/v1/balance")));
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        payments.request("/v1/payments", { method: "POST", json: body, headers: { "idempotency-key": key } }),
      ),
    );
    const outcomes = await Promise.all(
      answers.map(async (answer) => {
        const payload = await json<Payment & { error?: { code: string } }>(answer);
        if (answer.status === 409) return `409 ${payload.error?.code}`;
        return `${answer.status} ${answer.headers.get("idempotent-replayed") ? "replay" : "ran"} ${payload.id}`;
      }),
    );
    const ran = outcomes.filter((outcome) => outcome.includes(" ran "));
    expect(ran).toHaveLength(1);
    const id = ran[0]?.split(" ")[2];
    const { payments: paymentRows } = await import("./schema.ts");
    const { eq } = await import("drizzle-orm");
    const stored = await payments.deps.db
      .select({ id: paymentRows.id })
      .from(paymentRows)
      .where(eq(paymentRows.description, key));
    expect(stored.map((row) => row.id)).toEqual([id]);
    for (const outcome of outcomes)
      expect([`201 ran ${id}`, `201 replay ${id}`, "409 idempotency_key_in_use"]).toContain(outcome);
    // The others were read while the first ran, on PGlite as on PostgreSQL, not each after the one before.
    expect(outcomes.filter((outcome) => outcome.startsWith("409")).length).toBeGreaterThan(0);
  });

  describe("a claim abandoned by a process that died mid-request", () => {
    // The state a SIGKILL leaves: the key claimed (no answer stored), and perhaps the payment written.
    async function abandonClaim(key: string, body: Record<string, unknown>) {
      const { idempotencyKeys } = await import("../idempotency/schema.ts");
      const { hashRequest } = await import("../idempotency/hash-request.ts");
      const { IDEMPOTENCY_REQUEST_DEADLINE_MS } = await import("../idempotency/idempotency.ts");
      const lockedAt = clock.now();
      const claim = { merchantId: payments.merchantId, environment: "test", key };
      await payments.deps.db.insert(idempotencyKeys).values({
        ...claim,
        requestHash: hashRequest("POST", "/v1/payments", JSON.stringify(body)),
        createdAt: lockedAt,
        lockedAt,
      });
      return { ...claim, lockedAt, deadline: new Date(lockedAt.getTime() + IDEMPOTENCY_REQUEST_DEADLINE_MS) };
    }
    const send = (key: string, body: Record<string, unknown>) =>
      payments.request("/v1/payments", { method: "POST", json: body, headers: { "idempotency-key": key } });

    it("answers 409 within the lock timeout, then lets the retry take over and run the request once", async () => {
      const { IDEMPOTENCY_LOCK_TIMEOUT_MS } = await import("../idempotency/idempotency.ts");
      const key = `order-crashed-before-${Date.now()}`;
      const body = { amount: 12000, method: "qris" };
      await abandonClaim(key, body);
      expect((await send(key, body)).status).toBe(409);
      clock.advance(IDEMPOTENCY_LOCK_TIMEOUT_MS);
      const [first, second] = await Promise.all([send(key, body), send(key, body)]);
      // Of two retries at once, one takes the claim over and runs; the other sees it running or replays it.
      const statuses = [first?.status, second?.status].sort();
      expect([
        [201, 201],
        [201, 409],
      ]).toContainEqual(statuses);
      const created = (first?.status === 201 ? first : second) as Response;
      const payment = await json<Payment>(created);
      expect(payment).toMatchObject({ amount: 12000, status: "pending" });
      const again = await send(key, body);
      expect(again.headers.get("idempotent-replayed")).toBe("true");
      expect((await json<Payment>(again)).id).toBe(payment.id);
    });

    it("answers the payment the dead request had already written, creating no second one", async () => {
      const { IDEMPOTENCY_LOCK_TIMEOUT_MS } = await import("../idempotency/idempotency.ts");
      const { createPayment: createPaymentUseCase } = await import("./create-payment.ts");
      const key = `order-crashed-after-${Date.now()}`;
      const body = { amount: 13000, method: "ewallet" };
      const claim = await abandonClaim(key, body);
      clock.advance(1);
      // The request got as far as committing its payment (with its recovery point), then the process died.
      const written = await createPaymentUseCase(
        payments.deps,
        { merchantId: payments.merchantId, environment: "test" },
        { amount: 1300000n, currency: "IDR", method: "ewallet", expires_in: 86_400 },
        claim,
      );
      const before = await json<{ data: Payment[] }>(await payments.request("/v1/payments?limit=100"));
      clock.advance(IDEMPOTENCY_LOCK_TIMEOUT_MS);
      const retry = await send(key, body);
      expect(retry.status).toBe(201);
      expect(retry.headers.get("idempotent-replayed")).toBe("true");
      expect(await json<Payment>(retry)).toMatchObject({ id: written.id, amount: 13000, status: "pending" });
      const after = await json<{ data: Payment[] }>(await payments.request("/v1/payments?limit=100"));
      expect(after.data.map((payment) => payment.id)).toEqual(before.data.map((payment) => payment.id));
      // From then on the recovered answer is the stored one.
      const again = await send(key, body);
      expect((await json<Payment>(again)).id).toBe(written.id);
    });

    it("refuses another request on the abandoned key with 422 idempotency_key_reused", async () => {
      const { IDEMPOTENCY_LOCK_TIMEOUT_MS } = await import("../idempotency/idempotency.ts");
      const key = `order-crashed-other-${Date.now()}`;
      await abandonClaim(key, { amount: 14000, method: "qris" });
      clock.advance(IDEMPOTENCY_LOCK_TIMEOUT_MS);
      const other = await send(key, { amount: 15000, method: "qris" });
      expect(other.status).toBe(422);
      expect(await json(other)).toMatchObject({ error: { code: "idempotency_key_reused" } });
    });
  });

  it("is declared in the OpenAPI document on every POST: the header, 409 and the replay header", async () => {
    const document = await json<{
      paths: Record<
        string,
        Record<
          string,
          {
            parameters?: { name: string; in: string }[];
            responses: Record<string, { headers?: Record<string, unknown> }>;
          }
        >
      >;
    }>(await payments.request("/v1/openapi.json"));
    const posts = Object.entries(document.paths).flatMap(([path, item]) =>
      item.post ? [[path, item.post] as const] : [],
    );
    expect(posts.length).toBeGreaterThan(5);
    for (const [path, operation] of posts) {
      expect(operation.parameters, path).toContainEqual(
        expect.objectContaining({ name: "Idempotency-Key", in: "header" }),
      );
      expect(Object.keys(operation.responses), path).toContain("409");
    }
    expect(document.paths["/v1/payments"]?.post?.responses["201"]?.headers).toHaveProperty(
      "Idempotent-Replayed",
    );
  });
});
