import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { json, startTestPayments, type TestPayments } from "../../test/harness.ts";

type EventList = { object: string; data: { id: string; type: string }[]; has_more: boolean };

let payments: TestPayments;
let key: string;
let ids: string[] = []; // oldest first
beforeAll(async () => {
  payments = await startTestPayments();
  key = (await payments.newMerchant("Events")).testKey;
  for (let i = 0; i < 12; i++) {
    const response = await payments.request("/v1/payments", {
      method: "POST",
      key,
      json: { amount: 1000 + i, method: "qris" },
    });
    const payment = await json<{ id: string }>(response);
    if (i % 4 === 0)
      await payments.request(`/v1/test_helpers/payments/${payment.id}/fail`, { method: "POST", key });
  }
  // An event is listed once every older transaction of the database cluster has ended, and on a
  // shared server other test files' transactions may still be open: wait for all 15 to show.
  const deadline = Date.now() + 20_000;
  do {
    const all = await json<EventList>(await payments.request("/v1/events?limit=100", { key }));
    ids = all.data.map((event) => event.id).reverse();
    if (ids.length >= 15) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  } while (Date.now() < deadline);
});
afterAll(() => payments?.stop());

const list = async (query: string) => {
  const response = await payments.request(`/v1/events${query}`, { key });
  expect(response.status).toBe(200);
  return json<EventList>(response);
};

describe("GET /v1/events", () => {
  it("without a cursor: the newest 10 by default, newest first, has_more when older exist", async () => {
    expect(ids).toHaveLength(15);
    expect([...ids].sort()).toEqual(ids);
    const page = await list("");
    expect(page.object).toBe("list");
    expect(page.data.map((e) => e.id)).toEqual(ids.slice(5).reverse());
    expect(page.has_more).toBe(true);
    expect((await list("?limit=15")).has_more).toBe(false);
  });

  it("starting_after: the limit events right after the cursor (newer), newest first", async () => {
    const page = await list(`?limit=3&starting_after=${ids[2]}`);
    expect(page.data.map((e) => e.id)).toEqual([ids[5], ids[4], ids[3]]);
    expect(page.has_more).toBe(true);
    const last = await list(`?limit=3&starting_after=${ids[12]}`);
    expect(last.data.map((e) => e.id)).toEqual([ids[14], ids[13]]);
    expect(last.has_more).toBe(false);
    const none = await list(`?starting_after=${ids[14]}`);
    expect(none).toEqual({ object: "list", data: [], has_more: false });
  });

  it("ending_before: the limit events right before the cursor (older), newest first", async () => {
    const page = await list(`?limit=4&ending_before=${ids[10]}`);
    expect(page.data.map((e) => e.id)).toEqual([ids[9], ids[8], ids[7], ids[6]]);
    expect(page.has_more).toBe(true);
    const first = await list(`?limit=4&ending_before=${ids[2]}`);
    expect(first.data.map((e) => e.id)).toEqual([ids[1], ids[0]]);
    expect(first.has_more).toBe(false);
  });

  it("filters by type", async () => {
    const failed = await list("?type=payment.failed&limit=100");
    expect(failed.data).toHaveLength(3);
    expect(failed.data.every((e) => e.type === "payment.failed")).toBe(true);
    const pendingAfter = await list(`?type=payment.pending&limit=2&starting_after=${ids[0]}`);
    expect(pendingAfter.data.every((e) => e.type === "payment.pending")).toBe(true);
    expect(pendingAfter.has_more).toBe(true);
  });

  it("walking with the seed's routine from the first event applies every later event once, oldest first", async () => {
    const applied: string[] = [];
    let cursor = ids[0] ?? "";
    for (;;) {
      const page = await list(`?limit=4&starting_after=${cursor}`);
      for (const event of [...page.data].reverse()) {
        applied.push(event.id);
        cursor = event.id;
      }
      if (!page.has_more || page.data.length === 0) break;
    }
    expect(applied).toEqual(ids.slice(1));
  });

  it("GET /v1/events/{id} returns the event; another merchant's event is not found", async () => {
    const response = await payments.request(`/v1/events/${ids[3]}`, { key });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/application\/json/);
    expect(await json(response)).toMatchObject({ id: ids[3], object: "event", environment: "test" });
    const other = await payments.request(`/v1/events/${ids[3]}`);
    expect(other.status).toBe(404);
    expect(await json(other)).toMatchObject({ error: { type: "not_found", code: "event_not_found" } });
    expect((await payments.request(`/v1/events/${ids[3]}`, { key: payments.liveKey })).status).toBe(404);
  });
});

describe("GET /v1/events bad input", () => {
  it.each([
    ["?limit=0", "limit"],
    ["?limit=101", "limit"],
    ["?limit=abc", "limit"],
    ["?limit=2.5", "limit"],
    ["?type=payment.unknown", "type"],
    ["?type=", "type"],
    ["?starting_after=not-an-event", "starting_after"],
  ])("%s → 422 naming %s", async (query, param) => {
    const response = await payments.request(`/v1/events${query}`, { key });
    expect(response.status).toBe(422);
    expect(await json(response)).toMatchObject({
      error: { type: "invalid_request_error", code: "validation_failed", param },
    });
  });

  it("both cursors → 422", async () => {
    const response = await payments.request(`/v1/events?starting_after=${ids[1]}&ending_before=${ids[5]}`, {
      key,
    });
    expect(response.status).toBe(422);
    expect(await json(response)).toMatchObject({ error: { param: "ending_before" } });
  });

  it("an unknown cursor → 404 naming it", async () => {
    const unknown = "evt_zzzzzzzzzzzzzzzzzzzzzzzzzz";
    for (const param of ["starting_after", "ending_before"]) {
      const response = await payments.request(`/v1/events?${param}=${unknown}`, { key });
      expect(response.status).toBe(404);
      expect(await json(response)).toMatchObject({ error: { code: "cursor_not_found", param } });
    }
    // Another merchant's event id is unknown to this merchant.
    const foreign = await payments.request(`/v1/events?starting_after=${ids[0]}`);
    expect(foreign.status).toBe(404);
  });

  it("without a key → 401, with a wrong key → 401", async () => {
    const missing = await payments.request("/v1/events", { key: null });
    expect(missing.status).toBe(401);
    expect(await json(missing)).toMatchObject({ error: { type: "authentication_error" } });
    const wrong = await payments.request("/v1/events", { key: "sk_test_wrongwrongwrongwrongwrong" });
    expect(wrong.status).toBe(401);
  });
});
