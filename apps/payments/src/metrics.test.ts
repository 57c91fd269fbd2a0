import { prometheusSample } from "@app/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestPayments, type TestPayments } from "../test/harness.ts";

describe("payment service /metrics", () => {
  let payments: TestPayments;
  beforeAll(async () => {
    // The engine does not run: the delivery the payment schedules stays pending for the scrape.
    payments = await startTestPayments();
  });
  afterAll(() => payments?.stop());

  it("is open by default and reports request latency, the delivery queue, the pool and the event loop", async () => {
    const endpoint = await payments.request("/v1/webhook_endpoints", {
      method: "POST",
      json: { url: "http://127.0.0.1:9/hook", enabled_events: ["*"] },
    });
    expect(endpoint.status).toBe(201);
    const created = await payments.request("/v1/payments", {
      method: "POST",
      json: { amount: 5000, method: "qris" },
    });
    expect(created.status).toBe(201);
    expect((await payments.request("/v1/payments/pay_missing")).status).toBe(404);

    const response = await payments.request("/metrics", { key: null });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await response.text();

    const byRoute = (route: string, status: string) =>
      prometheusSample(text, "http_request_duration_seconds_count", { method: "POST", route, status });
    expect(byRoute("/v1/payments", "201")).toBe(1);
    expect(
      prometheusSample(text, "http_request_duration_seconds_count", {
        route: "/v1/payments/:id",
        status: "404",
      }),
    ).toBe(1);
    expect(prometheusSample(text, "webhook_deliveries", { state: "pending" })).toBeGreaterThanOrEqual(1);
    expect(prometheusSample(text, "webhook_deliveries", { state: "parked" })).toBe(0);
    expect(
      prometheusSample(text, "webhook_deliveries_oldest_age_seconds", { state: "pending" }),
    ).toBeGreaterThanOrEqual(0);
    expect(prometheusSample(text, "db_pool_connections", { state: "total" })).toBeGreaterThanOrEqual(1);
    expect(prometheusSample(text, "nodejs_eventloop_lag_seconds")).toBeGreaterThanOrEqual(0);
    expect(prometheusSample(text, "process_resident_memory_bytes")).toBeGreaterThan(0);
    // Raw paths never become labels: they carry ids.
    expect(text).not.toContain("pay_missing");
  });
});

describe("payment service /metrics with METRICS_TOKEN", () => {
  let payments: TestPayments;
  beforeAll(async () => {
    payments = await startTestPayments({ env: { METRICS_TOKEN: "scrape-token-0123456789" } });
  });
  afterAll(() => payments?.stop());

  it("answers 401 in the error shape without the bearer token and the series with it", async () => {
    const anonymous = await payments.request("/metrics", { key: null });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("www-authenticate")).toBe('Bearer realm="metrics"');
    expect(await anonymous.json()).toMatchObject({
      error: { type: "authentication_error", code: "unauthenticated" },
    });
    expect((await payments.request("/metrics", { key: "scrape-token-wrong-000000" })).status).toBe(401);

    const scraped = await payments.request("/metrics", { key: "scrape-token-0123456789" });
    expect(scraped.status).toBe(200);
    expect(await scraped.text()).toContain("# TYPE http_request_duration_seconds histogram");
  });
});
