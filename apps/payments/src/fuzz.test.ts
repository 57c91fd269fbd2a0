import { errorBodySchema } from "@app/http";
import { documentedOperations, fuzzRequests, type OpenApiDocument, retryOnReset } from "@app/http/testing";
import * as fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { json, startTestPayments, type TestPayments } from "../test/harness.ts";

// Property-based: generated valid and invalid requests to every documented operation answer no 500,
// every error in the error shape, and (through the harness) only statuses and bodies the OpenAPI
// document describes. A fixed seed keeps CI repeatable; FUZZ_SEED and FUZZ_RUNS explore further.
const SEED = Number(process.env.FUZZ_SEED ?? 22);
const RUNS = Number(process.env.FUZZ_RUNS ?? 6);

let payments: TestPayments;
let document: OpenApiDocument;
const pathValues: Record<string, string[]> = {};

beforeAll(async () => {
  payments = await startTestPayments();
  document = await json<OpenApiDocument>(await payments.request("/v1/openapi.json"));
  const payment = await json<{ id: string }>(
    await payments.request("/v1/payments", { method: "POST", json: { amount: 10000, method: "qris" } }),
  );
  const endpoint = await json<{ id: string }>(
    await payments.request("/v1/webhook_endpoints", {
      method: "POST",
      json: { url: "http://127.0.0.1:9/hook", enabled_events: ["*"] },
    }),
  );
  pathValues.id = [payment.id, endpoint.id];
});
afterAll(() => payments?.stop());

describe("fuzzing every documented operation", () => {
  it("covers the whole document", () => {
    expect(documentedOperations(document).length).toBeGreaterThan(15);
  });

  it("answers no 500 and every error in the shape", { timeout: 120_000 }, async () => {
    // Valid requests (by the document) that the validation refused: there must be none.
    const looser: string[] = [];
    for (const operation of documentedOperations(document)) {
      await fc.assert(
        fc.asyncProperty(fuzzRequests(fc, document, operation, pathValues), async (request) => {
          if (process.env.FUZZ_TRACE) console.log("FUZZ", JSON.stringify(request));
          const response = await retryOnReset(() =>
            payments.request(request.path, {
              method: request.method,
              headers: request.headers,
              ...(request.body === undefined ? {} : { body: request.body }),
            }),
          );
          const what = `${request.method} ${request.path} (${request.mutation ?? "valid"}) → ${response.status}`;
          // No 5xx at all: the payment service calls no outside service, and its one documented 503
          // (`request_timeout`, a creation past its deadline) cannot happen on a live clock this fast.
          expect(response.status, what).toBeLessThan(500);
          if (response.status >= 400 && response.headers.get("content-type")?.includes("json")) {
            const parsed = errorBodySchema.safeParse(await response.json());
            expect(parsed.success, what).toBe(true);
            // A request the document allows must not fail validation: the document is as strict as the checks.
            if (request.isValid && parsed.data?.error.code === "validation_failed") {
              looser.push(
                `${what}: ${JSON.stringify(parsed.data.error)} ${request.body?.slice(0, 300) ?? ""}`,
              );
            }
          }
        }),
        { seed: SEED, numRuns: RUNS },
      );
    }
    // The documents are as strict as the validation (cross-field rules are in the
    // schemas or, for query parameters, in x-mutually-exclusive-parameters).
    expect(looser, looser.join("\n")).toEqual([]);
  });
});
