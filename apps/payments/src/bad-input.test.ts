import { count } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { json, startTestPayments, type TestPayments } from "../test/harness.ts";
import { events, payments as paymentsTable, payouts, refunds, webhookEndpoints } from "./db/schema.ts";

let payments: TestPayments;
beforeAll(async () => {
  payments = await startTestPayments();
});
afterAll(() => payments?.stop());

async function counts() {
  const db = payments.deps.db;
  const [p] = await db.select({ n: count() }).from(paymentsTable);
  const [e] = await db.select({ n: count() }).from(events);
  const [r] = await db.select({ n: count() }).from(refunds);
  const [o] = await db.select({ n: count() }).from(payouts);
  const [w] = await db.select({ n: count() }).from(webhookEndpoints);
  return [p?.n, e?.n, r?.n, o?.n, w?.n];
}

describe("bad input answers the documented error and changes nothing", () => {
  it("malformed JSON → 400 invalid_json", async () => {
    const before = await counts();
    for (const path of ["/v1/payments", "/v1/refunds", "/v1/payouts", "/v1/webhook_endpoints"]) {
      const response = await payments.request(path, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: '{"amount": 1000, "method": "qris"',
      });
      expect(response.status, path).toBe(400);
      expect(response.headers.get("request-id")).toBeTruthy();
      expect(await json(response)).toEqual({
        error: { type: "invalid_request_error", code: "invalid_json", message: expect.any(String) },
      });
    }
    expect(await counts()).toEqual(before);
  });

  it.each([
    [{ amount: true, method: "qris" }, "amount"],
    [{ amount: 1000, method: 5 }, "method"],
    [{ amount: 1000, method: "cash" }, "method"],
    [{ amount: 1000.123, method: "qris" }, "amount"],
    [{ amount: "1000.123", method: "qris" }, "amount"],
    [{ amount: -1000, method: "qris" }, "amount"],
    [{ amount: "-5.00", method: "qris" }, "amount"],
    [{ amount: 0, method: "qris" }, "amount"],
    [{ amount: 1_000_000_000_000, method: "qris" }, "amount"],
    [{ amount: "1e5", method: "qris" }, "amount"],
    [{ method: "qris" }, "amount"],
    [{ amount: 1000, method: "qris", currency: "idr" }, "currency"],
    [{ amount: 1000, method: "qris", currency: "USD" }, "currency"],
    [{ amount: 1000, method: "qris", currency: "XXX" }, "currency"],
    [{ amount: " 100", method: "qris" }, "amount"],
    [{ amount: "100 ", method: "qris" }, "amount"],
    [{ amount: "+100", method: "qris" }, "amount"],
    [{ amount: "１００", method: "qris" }, "amount"],
    [{ amount: 1000, method: "qris", expires_in: 5 }, "expires_in"],
    [{ amount: 1000, method: "qris", surprise: 1 }, ""],
  ])("POST /v1/payments %j → 422", async (body, param) => {
    const before = await counts();
    const response = await payments.request("/v1/payments", { method: "POST", json: body });
    expect(response.status).toBe(422);
    const error = (await json<{ error: { type: string; code: string; param?: string } }>(response)).error;
    expect(error).toMatchObject({ type: "invalid_request_error", code: "validation_failed" });
    if (param) expect(error.param).toBe(param);
    expect(await counts()).toEqual(before);
  });

  it.each([
    [true, "or such a decimal as a string"],
    [null, "or such a decimal as a string"],
    [[100], "or such a decimal as a string"],
    [{ value: 100 }, "or such a decimal as a string"],
    ["", "or such a decimal as a string"],
    ["1,000", "or such a decimal as a string"],
    ["0100", "or such a decimal as a string"],
    ["100.", "or such a decimal as a string"],
    [".5", "or such a decimal as a string"],
    ["0x10", "or such a decimal as a string"],
    [1e-7, "at most two decimals"],
    [100.005, "at most two decimals"],
    ["0.001", "at most two decimals"],
    [1e21, "at most 999999999999.99"],
    [2 ** 53 + 2, "at most 999999999999.99"],
    ["1000000000000", "at most 999999999999.99"],
    ["0.00", "greater than 0"],
    [-0.5, "positive"],
  ])("refuses the amount %j with a 422 that says what is accepted (%s)", async (amount, says) => {
    const response = await payments.request("/v1/payments", {
      method: "POST",
      json: { amount, method: "qris" },
    });
    expect(response.status).toBe(422);
    const error = (await json<{ error: { code: string; param?: string; message: string } }>(response)).error;
    expect(error).toMatchObject({ code: "validation_failed", param: "amount" });
    expect(error.message).toContain(says);
  });

  it.each([
    ["0.5", 0.5],
    ["0.05", 0.05],
    ["100", 100],
    [0.01, 0.01],
  ])("accepts the amount %j", async (amount, answered) => {
    const response = await payments.request("/v1/payments", {
      method: "POST",
      json: { amount, method: "card" },
    });
    expect(response.status).toBe(201);
    expect(await json(response)).toMatchObject({ amount: answered });
  });

  it("accepts the largest amount and a two-decimal string", async () => {
    const max = await payments.request("/v1/payments", {
      method: "POST",
      json: { amount: 999999999999.99, method: "card" },
    });
    expect(max.status).toBe(201);
    expect(await json(max)).toMatchObject({ amount: 999999999999.99 });
    const text = await payments.request("/v1/payments", {
      method: "POST",
      json: { amount: "12.30", method: "card" },
    });
    expect(await json(text)).toMatchObject({ amount: 12.3 });
  });

  it.each([
    [{ payment: 5 }, "payment"],
    [{ payment: "pay_x", amount: 1.001 }, "amount"],
    [{ payment: "pay_x", amount: -1 }, "amount"],
  ])("POST /v1/refunds %j → 422", async (body, param) => {
    const before = await counts();
    const response = await payments.request("/v1/refunds", { method: "POST", json: body });
    expect(response.status).toBe(422);
    expect(await json(response)).toMatchObject({ error: { param } });
    expect(await counts()).toEqual(before);
  });

  it.each([
    [
      { amount: 10, destination: { bank_code: "BCA", account_number: "12", account_name: "A" } },
      "destination.account_number",
    ],
    [{ amount: 10 }, "destination"],
    [
      { amount: 10.999, destination: { bank_code: "BCA", account_number: "1234567", account_name: "A" } },
      "amount",
    ],
  ])("POST /v1/payouts %j → 422", async (body, param) => {
    const before = await counts();
    const response = await payments.request("/v1/payouts", { method: "POST", json: body });
    expect(response.status).toBe(422);
    expect(await json(response)).toMatchObject({ error: { param } });
    expect(await counts()).toEqual(before);
  });

  it.each([
    [{ url: "not a url", enabled_events: ["*"] }, "url"],
    [{ url: "http://127.0.0.1:9/x", enabled_events: ["payment.unknown"] }, "enabled_events[0]"],
    [{ url: "http://127.0.0.1:9/x", enabled_events: [] }, "enabled_events"],
    [{ url: "ftp://example.com/x", enabled_events: ["*"] }, "url"],
  ])("POST /v1/webhook_endpoints %j → 422", async (body, param) => {
    const before = await counts();
    const response = await payments.request("/v1/webhook_endpoints", { method: "POST", json: body });
    expect(response.status).toBe(422);
    expect(await json(response)).toMatchObject({ error: { param } });
    expect(await counts()).toEqual(before);
  });

  it("a PATCH of a webhook endpoint that sets no field → 422", async () => {
    const created = await payments.request("/v1/webhook_endpoints", {
      method: "POST",
      json: { url: "http://127.0.0.1:9/hook", enabled_events: ["*"] },
    });
    const { id } = await json<{ id: string }>(created);
    const response = await payments.request(`/v1/webhook_endpoints/${id}`, { method: "PATCH", json: {} });
    expect(response.status).toBe(422);
    expect(await json(response)).toMatchObject({ error: { code: "validation_failed" } });
  });

  it("unknown routes → 404 route_not_found; list limits outside 1..100 → 422", async () => {
    const response = await payments.request("/v1/nothing-here");
    expect(response.status).toBe(404);
    expect(await json(response)).toMatchObject({ error: { code: "route_not_found" } });
    for (const path of ["/v1/payments?limit=0", "/v1/payments?limit=101", "/v1/webhook_deliveries?limit=0"]) {
      expect((await payments.request(path)).status, path).toBe(422);
    }
  });
});

describe("characters PostgreSQL cannot store, and bytes that are not UTF-8", () => {
  type ErrorJson = { error: { type: string; code: string; param?: string } };

  it.each([
    ['{"amount":1000,"method":"qris","description":"a\\u0000b"}', "description"],
    ['{"amount":1000,"method":"qris","description":"a\\ud800b"}', "description"],
    ['{"amount":1000,"method":"qris","metadata":{"order":"\\udc00"}}', "metadata.order"],
  ])("POST /v1/payments %s → 422 naming the field, nothing stored", async (body, param) => {
    const before = await counts();
    const response = await payments.request("/v1/payments", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    });
    expect(response.status).toBe(422);
    expect((await json<ErrorJson>(response)).error).toMatchObject({ code: "validation_failed", param });
    expect(await counts()).toEqual(before);
  });

  it("a body that is not UTF-8 → 400 invalid_json, not a description full of U+FFFD", async () => {
    const before = await counts();
    const body = Buffer.concat([
      Buffer.from('{"amount":1000,"method":"qris","description":"caf'),
      Buffer.from([0xe9]),
      Buffer.from('"}'),
    ]);
    const response = await payments.request("/v1/payments", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    });
    expect(response.status).toBe(400);
    expect((await json<ErrorJson>(response)).error.code).toBe("invalid_json");
    expect(await counts()).toEqual(before);
  });

  it.each([
    ["/v1/payments/pay_%00x", 422, "id"],
    ["/v1/refunds/re_%ff", 400, "id"],
    ["/v1/payments?starting_after=pay_%00", 422, "starting_after"],
    ["/v1/events?type=%00", 422, "type"],
    ["/checkout/pay_%00x", 422, "id"],
  ])("GET %s → %i naming %s", async (path, status, param) => {
    const response = await payments.request(path);
    expect(response.status).toBe(status);
    expect((await json<ErrorJson>(response)).error).toMatchObject({ param });
  });

  it.each([
    "/v1/payments?starting_after=garbage",
    "/v1/refunds?starting_after=pay_",
    "/v1/webhook_endpoints?starting_after=%20",
    "/v1/webhook_deliveries?starting_after=x",
    "/v1/payouts?starting_after=!!garbage!!",
    // An id of another kind orders nothing in this list either.
    "/v1/payments?starting_after=re_01m8gp8z5279ga2b7qc7c1pze8",
    "/v1/refunds?starting_after=pay_01m8gp8z5279ga2b7qc7c1pze8",
    "/v1/payouts?starting_after=pay_01m8gp8z5279ga2b7qc7c1pze8",
    "/v1/webhook_endpoints?starting_after=wd_01m8gp8z5279ga2b7qc7c1pze8",
    "/v1/webhook_deliveries?starting_after=we_01m8gp8z5279ga2b7qc7c1pze8",
  ])("a garbage list cursor %s → 422 instead of an empty page", async (path) => {
    const response = await payments.request(path);
    expect(response.status).toBe(422);
    expect((await json<ErrorJson>(response)).error).toMatchObject({ param: "starting_after" });
  });
});

describe("currencies from the configured list, with their ISO 4217 minor units", () => {
  let multi: TestPayments;
  beforeAll(async () => {
    multi = await startTestPayments({ env: { PAYMENTS_CURRENCIES: "IDR,JPY" } });
  });
  afterAll(() => multi?.stop());

  it("takes whole yen, refuses yen with decimals and a currency not configured, and documents the list", async () => {
    const yen = await multi.request("/v1/payments", {
      method: "POST",
      json: { amount: 1200, currency: "JPY", method: "card" },
    });
    expect(yen.status).toBe(201);
    expect(await json(yen)).toMatchObject({ amount: 1200, currency: "JPY" });
    const fraction = await multi.request("/v1/payments", {
      method: "POST",
      json: { amount: 1200.5, currency: "JPY", method: "card" },
    });
    expect(fraction.status).toBe(422);
    expect(await json(fraction)).toMatchObject({ error: { code: "validation_failed", param: "amount" } });
    const usd = await multi.request("/v1/payments", {
      method: "POST",
      json: { amount: 12, currency: "USD", method: "card" },
    });
    expect(usd.status).toBe(422);
    expect(await json(usd)).toMatchObject({
      error: { param: "currency", message: expect.stringContaining("IDR, JPY") },
    });
    const document = await json<{
      components: { schemas: Record<string, { properties: { currency?: { enum?: string[] } } }> };
    }>(await multi.request("/v1/openapi.json"));
    expect(document.components.schemas.CreatePaymentRequest?.properties.currency?.enum).toEqual([
      "IDR",
      "JPY",
    ]);
    expect(document.components.schemas.CreatePayoutRequest?.properties.currency?.enum).toEqual([
      "IDR",
      "JPY",
    ]);
  });
});
