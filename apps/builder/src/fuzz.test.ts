import { errorBodySchema } from "@app/http";
import { documentedOperations, fuzzRequests, type OpenApiDocument, retryOnReset } from "@app/http/testing";
import * as fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestBuilder, type TestBuilder } from "../test/harness.ts";
import { createBase } from "../test/knowledge-support.ts";

// Property-based: generated valid and invalid requests to every documented operation answer no 500,
// every error in the error shape, and (through the harness) only statuses and bodies the OpenAPI
// document describes. Requests carry an API key (a cookie could be signed out by the fuzz itself).
// A fixed seed keeps CI repeatable; FUZZ_SEED and FUZZ_RUNS explore further.
const SEED = Number(process.env.FUZZ_SEED ?? 22);
const RUNS = Number(process.env.FUZZ_RUNS ?? 4);

let builder: TestBuilder;
let document: OpenApiDocument;
let key: string;
const pathValues: Record<string, string[]> = {};
const knownValues: Record<string, string[]> = {};

beforeAll(async () => {
  builder = await startTestBuilder();
  const { cookie } = await builder.signUp();
  document = (await (await builder.request("/api/openapi.json")).json()) as OpenApiDocument;
  const created = await builder.request("/api/keys", { method: "POST", cookie, json: { name: "fuzz" } });
  key = ((await created.json()) as { key: string }).key;
  const agent = await builder.request("/api/agents", {
    method: "POST",
    cookie,
    json: { name: "Fuzzed", provider: "openai", model: "gpt-4o-mini" },
  });
  const workflow = await builder.request("/api/workflows", {
    method: "POST",
    cookie,
    json: {
      name: "Fuzzed",
      graph: {
        nodes: [
          { id: "start", type: "start", position: { x: 0, y: 0 }, data: { inputs: [] } },
          { id: "done", type: "end", position: { x: 0, y: 0 }, data: { outputs: [] } },
        ],
        edges: [{ id: "e", source: "start", target: "done" }],
      },
    },
  });
  const workflowId = ((await workflow.json()) as { id: string }).id;
  const baseId = await createBase(builder, cookie, { name: "Fuzzed" });
  pathValues.id = [((await agent.json()) as { id: string }).id, workflowId, baseId];
  // Saves refuse ids of objects the workspace does not have: generated bodies name real ones.
  knownValues.workflow_id = [workflowId];
  knownValues.knowledge_base_ids = [baseId];
  knownValues.knowledge_base_id = [baseId];
  const dataset = await builder.request("/api/datasets", {
    method: "POST",
    cookie,
    json: { name: "Fuzzed", rows: [{ input: "Hello", expected: "Hi" }] },
  });
  knownValues.dataset_id = [((await dataset.json()) as { id: string }).id];
  // A cron expression and a time zone are checked by the cron library and the runtime's zone data,
  // which a JSON Schema cannot state: valid requests carry real ones.
  knownValues.cron = ["*/30 * * * *", "0 0 9 * * 1-5"];
  knownValues.timezone = ["UTC", "Asia/Jakarta"];
}, 120_000);
afterAll(() => builder?.stop());

describe("fuzzing every documented operation", () => {
  it("covers the whole document", () => {
    expect(documentedOperations(document).length).toBeGreaterThan(50);
  });

  it("answers no 500 and every error in the shape", { timeout: 240_000 }, async () => {
    // Valid requests (by the document) that the validation refused: there must be none.
    const looser: string[] = [];
    for (const operation of documentedOperations(document)) {
      await fc.assert(
        fc.asyncProperty(fuzzRequests(fc, document, operation, pathValues, knownValues), async (request) => {
          if (process.env.FUZZ_TRACE) console.log("FUZZ", JSON.stringify(request));
          const response = await retryOnReset(() =>
            builder.request(request.path, {
              method: request.method,
              headers: request.headers,
              bearer: key,
              ...(request.body === undefined ? {} : { body: request.body }),
            }),
          );
          const what = `${request.method} ${request.path} (${request.mutation ?? "valid"}) → ${response.status}`;
          // Never a 500; a 502/503 only where an outside service the operation documents is down or unset
          // (Replicate, the payment service), which the harness's OpenAPI check holds it to.
          expect(response.status < 500 || [502, 503].includes(response.status), what).toBe(true);
          const type = response.headers.get("content-type") ?? "";
          if (response.status >= 400 && type.includes("json")) {
            const body = (await response.json()) as { jsonrpc?: string };
            const parsed = errorBodySchema.safeParse(body);
            // The MCP endpoint's protocol errors are JSON-RPC, as the MCP specification requires (and
            // as its OpenAPI entry says, which the harness checks).
            expect(parsed.success || body.jsonrpc === "2.0", what).toBe(true);
            // A request the document allows must not fail validation: the document is as strict as the checks.
            if (request.isValid && parsed.data?.error.code === "validation_failed") {
              looser.push(
                `${what}: ${JSON.stringify(parsed.data.error)} ${request.body?.slice(0, 300) ?? ""}`,
              );
            }
          } else {
            await response.body?.cancel();
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
