import { startTracing, type Tracing } from "@app/observability";
import { type FakeOtlpReceiver, startFakeOtlpReceiver } from "@app/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestPayments, type TestPayments } from "../test/harness.ts";

let receiver: FakeOtlpReceiver;
let tracing: Tracing;
let payments: TestPayments;

beforeAll(async () => {
  receiver = await startFakeOtlpReceiver();
  tracing = await startTracing({ service: "payments-test", endpoint: receiver.url });
  payments = await startTestPayments();
});
afterAll(async () => {
  await payments?.stop();
  await tracing?.shutdown();
  await receiver?.close();
});

describe("payment service traces over OTLP", () => {
  it("exports a trace per request with the merchant and its database statements inside it", async () => {
    const created = await payments.request("/v1/payments", {
      method: "POST",
      json: { amount: 5000, method: "qris" },
    });
    expect(created.status).toBe(201);
    const requestId = created.headers.get("request-id");

    // Flushes the batch to the receiver.
    await tracing.shutdown();

    const spans = receiver.spans.filter((span) => span.service === "payments-test");
    const request = spans.find((span) => span.name === "POST /v1/payments");
    expect(request?.attributes).toMatchObject({
      "http.route": "/v1/payments",
      "http.response.status_code": 201,
      "request.id": requestId,
      "merchant.id": payments.merchantId,
    });
    const statements = spans.filter(
      (span) => span.traceId === request?.traceId && span.attributes["db.system.name"] === "postgresql",
    );
    expect(statements.length).toBeGreaterThan(0);
    for (const statement of statements) {
      expect(statement.kind).toBe(3);
      expect(statement.attributes["db.namespace"]).toBe("payments");
    }
    // The merchant's key looked up, then the payment written (with its ledger and event rows in one statement).
    expect(statements.map((span) => span.name)).toContain("SELECT secret_keys");
    expect(
      statements.some((span) => String(span.attributes["db.query.text"]).includes('insert into "payments"')),
    ).toBe(true);
  });
});
