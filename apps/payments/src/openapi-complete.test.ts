import { looseRequestObjects, type OpenApiDocument } from "@app/http/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { json, startTestPayments, type TestPayments } from "../test/harness.ts";
import { createPaymentsApp } from "./app.ts";

let payments: TestPayments;
beforeAll(async () => {
  payments = await startTestPayments();
});
afterAll(() => payments?.stop());

describe("the OpenAPI document", () => {
  it("covers every API route the service serves", async () => {
    const document = await json<{ paths: Record<string, Record<string, unknown>> }>(
      await payments.request("/v1/openapi.json"),
    );
    const documented = new Set(
      Object.entries(document.paths).flatMap(([path, item]) =>
        Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
      ),
    );
    const served = createPaymentsApp(payments.deps)
      .routes.filter((route) => route.path.startsWith("/v1/") && route.method !== "ALL")
      .filter((route) => route.path !== "/v1/openapi.json")
      .map((route) => `${route.method} ${route.path.replace(/:([A-Za-z_]+)/g, "{$1}")}`);
    expect(served.length).toBeGreaterThan(15);
    const missing = [...new Set(served)].filter((route) => !documented.has(route));
    expect(missing).toEqual([]);
  });

  it("refuses unknown keys in every object a JSON request body can hold (additionalProperties: false)", async () => {
    const document = await json<OpenApiDocument>(await payments.request("/v1/openapi.json"));
    expect(looseRequestObjects(document)).toEqual([]);
  });
});
