import { type Clock, manualClock } from "@app/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { json, startTestPayments, type TestPayments } from "../../test/harness.ts";
import { createPayment } from "../payments/create-payment.ts";
import { hashRequest } from "./hash-request.ts";
import { IDEMPOTENCY_LOCK_TIMEOUT_MS, IDEMPOTENCY_REQUEST_DEADLINE_MS } from "./idempotency.ts";
import { type IdempotencyClaim, idempotencyKeys } from "./schema.ts";

type Payment = { id: string; amount: number };

const base = manualClock(new Date("2026-03-01T08:00:00Z"));
/** How far each reading of the clock moves it: a request that reads it a few times then spans that many steps. */
let stepMs = 0;
const clock: Clock = {
  now: () => {
    base.advance(stepMs || 1);
    return base.now();
  },
};
let payments: TestPayments;
beforeAll(async () => {
  payments = await startTestPayments({ clock });
});
afterAll(() => payments?.stop());

const send = (key: string, body: Record<string, unknown>) =>
  payments.request("/v1/payments", { method: "POST", json: body, headers: { "idempotency-key": key } });

async function paymentIdsOfAmount(amount: number): Promise<string[]> {
  const page = await json<{ data: Payment[] }>(await payments.request("/v1/payments?limit=100"));
  return page.data.filter((payment) => payment.amount === amount).map((payment) => payment.id);
}

/** A key claimed by a request that is still running (no answer stored), as the middleware leaves it. */
async function claimKey(
  key: string,
  body: Record<string, unknown>,
  { path = "/v1/payments", recoveryPoint = null as string | null } = {},
): Promise<IdempotencyClaim> {
  const lockedAt = base.now();
  const claim = { merchantId: payments.merchantId, environment: "test", key };
  await payments.deps.db.insert(idempotencyKeys).values({
    ...claim,
    requestHash: hashRequest("POST", path, JSON.stringify(body)),
    createdAt: lockedAt,
    lockedAt,
    recoveryPoint,
  });
  return { ...claim, lockedAt, deadline: new Date(lockedAt.getTime() + IDEMPOTENCY_REQUEST_DEADLINE_MS) };
}

describe("the request deadline behind the idempotency lock", () => {
  it("ends well before a retry may take a key over", () => {
    expect(IDEMPOTENCY_REQUEST_DEADLINE_MS).toBeLessThanOrEqual(IDEMPOTENCY_LOCK_TIMEOUT_MS / 2);
  });

  it("a creation that reaches its commit after the deadline answers 503 request_timeout, writes nothing and frees the key", async () => {
    const key = `slow-${Date.now()}`;
    const body = { amount: 31000, method: "qris" };
    stepMs = IDEMPOTENCY_REQUEST_DEADLINE_MS;
    const late = await send(key, body).finally(() => {
      stepMs = 0;
    });
    expect(late.status).toBe(503);
    expect(await json(late)).toMatchObject({ error: { type: "api_error", code: "request_timeout" } });
    expect(await paymentIdsOfAmount(31000)).toEqual([]);
    const retry = await send(key, body);
    expect(retry.status).toBe(201);
    expect(retry.headers.get("idempotent-replayed")).toBeNull();
    const created = await json<Payment>(retry);
    expect(await paymentIdsOfAmount(31000)).toEqual([created.id]);
  });

  it("a request whose key a retry took over writes nothing when it finally commits, past its deadline or not", async () => {
    const key = `outlived-${Date.now()}`;
    const body = { amount: 32000, method: "ewallet" };
    const first = await claimKey(key, body);
    base.advance(IDEMPOTENCY_LOCK_TIMEOUT_MS);
    const retry = await send(key, body);
    expect(retry.status).toBe(201);
    const created = await json<Payment>(retry);
    const input = { amount: 3200000n, currency: "IDR", method: "ewallet", expires_in: 86_400 } as const;
    const scope = { merchantId: payments.merchantId, environment: "test" as const };
    // The first request, still alive, reaches its commit: past its deadline by this clock…
    await expect(createPayment(payments.deps, scope, input, first)).rejects.toMatchObject({
      status: 503,
      code: "request_timeout",
    });
    // …and, from a process whose clock lags, within it: the claim it held is no longer its own.
    const skewed = { ...first, deadline: new Date(base.now().getTime() + IDEMPOTENCY_REQUEST_DEADLINE_MS) };
    await expect(createPayment(payments.deps, scope, input, skewed)).rejects.toMatchObject({
      status: 503,
      code: "request_timeout",
    });
    expect(await paymentIdsOfAmount(32000)).toEqual([created.id]);
    const again = await send(key, body);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect((await json<Payment>(again)).id).toBe(created.id);
  });

  it("fences a webhook endpoint creation too: past the deadline it registers nothing, and the retry one", async () => {
    const key = `slow-endpoint-${Date.now()}`;
    const body = { url: "http://127.0.0.1:9/slow", enabled_events: ["*"] };
    const sendEndpoint = () =>
      payments.request("/v1/webhook_endpoints", {
        method: "POST",
        json: body,
        headers: { "idempotency-key": key },
      });
    const endpointsAtUrl = async () =>
      (
        await json<{ data: { id: string; url: string }[] }>(
          await payments.request("/v1/webhook_endpoints?limit=100"),
        )
      ).data.filter((endpoint) => endpoint.url === body.url);
    stepMs = IDEMPOTENCY_REQUEST_DEADLINE_MS;
    const late = await sendEndpoint().finally(() => {
      stepMs = 0;
    });
    expect(late.status).toBe(503);
    expect(await json(late)).toMatchObject({ error: { code: "request_timeout" } });
    expect(await endpointsAtUrl()).toEqual([]);
    const retry = await sendEndpoint();
    expect(retry.status).toBe(201);
    expect(await endpointsAtUrl()).toHaveLength(1);
  });

  it("answers a retry of an endpoint creation whose process died after writing it with that endpoint and its secret", async () => {
    const body = { url: "http://127.0.0.1:9/recovered", enabled_events: ["payment.succeeded"] };
    const written = await json<{ id: string; secret: string }>(
      await payments.request("/v1/webhook_endpoints", { method: "POST", json: body }),
    );
    const key = `dead-endpoint-${Date.now()}`;
    await claimKey(key, body, { path: "/v1/webhook_endpoints", recoveryPoint: written.id });
    base.advance(IDEMPOTENCY_LOCK_TIMEOUT_MS);
    const retry = await payments.request("/v1/webhook_endpoints", {
      method: "POST",
      json: body,
      headers: { "idempotency-key": key },
    });
    expect(retry.status).toBe(201);
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect(await json(retry)).toMatchObject({ id: written.id, secret: written.secret });
  });

  it("is declared as 503 request_timeout on the creations it fences", async () => {
    const document = await json<{ paths: Record<string, { post?: { responses: Record<string, unknown> } }> }>(
      await payments.request("/v1/openapi.json"),
    );
    for (const path of ["/v1/payments", "/v1/refunds", "/v1/payouts", "/v1/webhook_endpoints"])
      expect(Object.keys(document.paths[path]?.post?.responses ?? {}), path).toContain("503");
    const rotate = document.paths["/v1/webhook_endpoints/{id}/rotate_secret"]?.post;
    expect(Object.keys(rotate?.responses ?? {})).not.toContain("503");
  });
});
