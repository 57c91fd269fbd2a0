// n8n workflow exports, written by hand in the shape n8n's "Download" writes (fixtures/), imported
// over the API and run: the sandbox runs their Code nodes, a fake OpenAI answers the LLM node, a
// local server stands for the HTTP APIs.
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createSandbox, type Sandbox } from "@app/sandbox";
import { type FakeProvider, lastUserText, startFakeOpenAI } from "@app/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestBuilder, type TestBuilder } from "../../../test/harness.ts";
import type { RunJson } from "../../../test/workflow-support.ts";

let sandbox: Sandbox;
let builder: TestBuilder;
let openai: FakeProvider;
let api: Server;
let apiUrl: string;
const OPENAI_KEY = "sk-n8n-import-0001";
const WEATHER_KEY = "weather-secret-1";

beforeAll(async () => {
  sandbox = await createSandbox({ uidBase: 1_675_000_000, concurrency: 2, warmPerLanguage: 0 });
  openai = await startFakeOpenAI({
    apiKey: OPENAI_KEY,
    script: (turn) => ({ text: /crash|error/i.test(lastUserText(turn)) ? "bug" : "billing" }),
  });
  builder = await startTestBuilder({ env: { ALLOW_PRIVATE_URLS: "1" }, deps: { sandbox } });
  api = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://localhost");
    res.setHeader("content-type", "application/json");
    if (req.headers.authorization !== WEATHER_KEY) {
      res.statusCode = 401;
      res.end(JSON.stringify({ error: "no key" }));
      return;
    }
    const city = url.searchParams.get("city");
    res.end(
      JSON.stringify({
        city,
        units: url.searchParams.get("units"),
        temperature: city === "Jakarta" ? 31 : 12,
      }),
    );
  });
  await new Promise<void>((resolve) => api.listen(0, "127.0.0.1", resolve));
  apiUrl = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
}, 240_000);

afterAll(async () => {
  await new Promise((resolve) => api?.close(resolve));
  await builder?.stop();
  await openai?.close();
  await sandbox?.close();
});

const fixture = (name: string): Record<string, unknown> =>
  JSON.parse(readFileSync(new URL(`./fixtures/${name}.json`, import.meta.url), "utf8")) as Record<
    string,
    unknown
  >;

async function json<T = Record<string, unknown>>(response: Response, status: number): Promise<T> {
  const text = await response.text();
  expect(response.status, text).toBe(status);
  return JSON.parse(text) as T;
}

interface Imported {
  id: string;
  name: string;
  trigger_url: string;
  graph: {
    nodes: { id: string; type: string; position: { x: number; y: number }; data: Record<string, unknown> }[];
    edges: { source: string; target: string; source_handle?: string }[];
  };
  import_report: {
    source: { format: string };
    references: {
      resolved: { kind: string; name: string; resolved_by: string }[];
      unresolved: { kind: string; name: string; action: string }[];
    };
    n8n: {
      nodes: {
        name: string;
        type: string;
        outcome: string;
        node_id: string | null;
        node_type: string | null;
        reason?: string;
        warnings?: string[];
      }[];
    };
    warnings: string[];
  };
}

const importN8n = async (cookie: string, document: unknown, query = "") =>
  json<Imported>(
    await builder.request(`/api/workflows/import${query}`, { method: "POST", cookie, json: document }),
    201,
  );

const runIt = async (cookie: string, id: string, inputs: Record<string, unknown>) =>
  json<RunJson>(
    await builder.request(`/api/workflows/${id}/runs`, { method: "POST", cookie, json: { inputs } }),
    200,
  );

const nodeOf = (imported: Imported, id: string) => imported.graph.nodes.find((node) => node.id === id);
const reportOf = (imported: Imported, name: string) =>
  imported.import_report.n8n.nodes.find((node) => node.name === name);

describe("importing n8n workflows", () => {
  it("webhook + JavaScript Code + Respond to Webhook: the webhook's sample becomes the inputs, the response the outputs", async () => {
    const { cookie } = await builder.signUp();
    const imported = await importN8n(cookie, fixture("webhook-code-respond"));
    expect(imported.name).toBe("Signup greeting");
    expect(imported.import_report.source.format).toBe("n8n");
    expect(imported.graph.nodes.map((node) => [node.id, node.type])).toEqual([
      ["start", "start"],
      ["build_greeting", "code"],
      ["respond_to_webhook", "end"],
    ]);
    expect(nodeOf(imported, "start")).toMatchObject({
      position: { x: -380, y: 200 },
      data: {
        title: "Webhook",
        inputs: [
          { name: "name", type: "string", required: false },
          { name: "plan", type: "string", required: false },
        ],
      },
    });
    expect(nodeOf(imported, "respond_to_webhook")?.data.outputs).toEqual([
      { name: "message", value: "{{build_greeting.json.greeting}}" },
      { name: "plan", value: "{{build_greeting.json.plan}}" },
      { name: "vip", value: "{{build_greeting.json.vip}}" },
    ]);
    expect(reportOf(imported, "Respond to Webhook")?.warnings?.join(" ")).toContain("status code");

    // The trigger URL takes the webhook's JSON body, as n8n's did.
    const hook = new URL(imported.trigger_url).pathname;
    const run = await json<RunJson>(
      await builder.request(`${hook}?wait=true`, { method: "POST", json: { name: "Ada", plan: "pro" } }),
      200,
    );
    expect(run.status).toBe("succeeded");
    expect(run.outputs).toEqual({ message: "Hello, Ada!", plan: "PRO", vip: true });
  });

  it("HTTP Request + IF branches: query, headers, credential by name, retries, and each branch's Set ending the run", async () => {
    const { cookie } = await builder.signUp();
    const credential = await json<{ id: string }>(
      await builder.request("/api/credentials", {
        method: "POST",
        cookie,
        json: { provider: "http", api_key: WEATHER_KEY, name: "Weather API key" },
      }),
      201,
    );
    const document = JSON.parse(
      JSON.stringify(fixture("http-if-branches")).replace("https://api.weather.example.com", apiUrl),
    );
    const imported = await importN8n(cookie, document);
    expect(imported.import_report.references.resolved).toMatchObject([
      { kind: "credential", name: "Weather API key", resolved_by: "name" },
    ]);
    expect(nodeOf(imported, "current_weather")).toMatchObject({
      type: "http",
      retry: { max_attempts: 2, backoff: "fixed", initial_ms: 100 },
      data: {
        method: "GET",
        url: `${apiUrl}/v1/current`,
        query: { city: "{{start.city}}", units: "metric" },
        headers: { Accept: "application/json" },
        auth: { type: "api_key", header: "Authorization", credential_id: credential.id },
        timeout_ms: 5000,
      },
    });
    expect(nodeOf(imported, "hot")?.data.cases).toEqual([
      {
        id: "true",
        logic: "and",
        conditions: [
          { left: "{{current_weather.json.temperature}}", operator: "gt", right: "{{start.threshold}}" },
        ],
      },
    ]);
    expect(imported.graph.edges).toContainEqual({
      id: "hot-true-hot_advice",
      source: "hot",
      target: "hot_advice",
      source_handle: "true",
    });
    expect(imported.graph.edges).toContainEqual({
      id: "hot-else-mild_advice",
      source: "hot",
      target: "mild_advice",
      source_handle: "else",
    });
    expect(nodeOf(imported, "start")?.data.inputs).toEqual([
      { name: "city", type: "string", required: false },
      { name: "threshold", type: "number", required: false },
    ]);

    const hot = await runIt(cookie, imported.id, { city: "Jakarta", threshold: 25 });
    expect(hot.outputs).toEqual({ advice: "Stay in the shade in Jakarta", temperature: 31 });
    const mild = await runIt(cookie, imported.id, { city: "Oslo", threshold: 25 });
    expect(mild.outputs).toEqual({ advice: "Take a jacket", temperature: 12 });
  });

  it("Set chains (versions 2 and 3, dot notation, other fields kept) through a no-op, with the sticky note ignored", async () => {
    const { cookie } = await builder.signUp();
    const imported = await importN8n(cookie, fixture("set-chain"));
    expect(imported.graph.nodes.map((node) => node.id)).toEqual([
      "start",
      "seed",
      "name",
      "greet",
      "end_greet",
    ]);
    expect(reportOf(imported, "No Operation, do nothing")).toMatchObject({
      outcome: "ignored",
      node_id: null,
    });
    expect(reportOf(imported, "Sticky Note")).toMatchObject({ outcome: "ignored", reason: "a sticky note" });
    expect(reportOf(imported, "Greet")).toMatchObject({
      outcome: "mapped",
      node_id: "greet",
      node_type: "code",
    });
    const run = await runIt(cookie, imported.id, {});
    expect(run.status, JSON.stringify(run.error)).toBe("succeeded");
    expect(run.outputs).toEqual({
      result: {
        full_name: "Ada Lovelace",
        profile: { born: 1815 },
        greeting: "Hello Ada Lovelace, born 1815!",
        tags: ["math", "poetry"],
      },
    });
  });

  it("Python Code in both modes, with the Execute Workflow Trigger's JSON example as the inputs", async () => {
    const { cookie } = await builder.signUp();
    const imported = await importN8n(cookie, fixture("python-code"));
    expect(nodeOf(imported, "start")?.data.inputs).toEqual([
      { name: "order_id", type: "string", required: false },
      { name: "prices", type: "array", required: false },
    ]);
    expect(nodeOf(imported, "total")?.data).toMatchObject({
      language: "python",
      inputs: [{ name: "json", value: { order_id: "{{start.order_id}}", prices: "{{start.prices}}" } }],
    });
    const run = await runIt(cookie, imported.id, { order_id: "A-7", prices: [12.5, 7.25, 30] });
    expect(run.status, JSON.stringify(run.error)).toBe("succeeded");
    expect(run.outputs).toEqual({
      result: { order_id: "A-7", total: 49.75, count: 3, with_vat: 55.22, bulk: true },
    });
  });

  it("Chat Trigger + Basic LLM Chain with its OpenAI model, and an IF on the answer", async () => {
    const { cookie } = await builder.signUp();
    await json(
      await builder.request("/api/credentials", {
        method: "POST",
        cookie,
        json: { provider: "openai", api_key: OPENAI_KEY, base_url: openai.baseUrl },
      }),
      201,
    );
    const imported = await importN8n(cookie, fixture("llm-chain"));
    expect(nodeOf(imported, "basic_llm_chain")).toMatchObject({
      type: "llm",
      data: {
        provider: "openai",
        model: "gpt-4o-mini",
        temperature: 0.2,
        max_tokens: 50,
        system: "You triage support messages. Answer with one word: billing, bug or other.",
        prompt: "Customer message: {{start.chatInput}}",
      },
    });
    expect(reportOf(imported, "OpenAI Chat Model")).toMatchObject({
      outcome: "mapped",
      node_id: "basic_llm_chain",
      node_type: "llm",
    });
    expect(nodeOf(imported, "start")?.data.inputs).toEqual([
      { name: "chatInput", type: "string", required: true },
    ]);

    const billing = await runIt(cookie, imported.id, { chatInput: "I was charged twice" });
    expect(billing.outputs).toEqual({ queue: "front-desk", label: "billing" });
    const bug = await runIt(cookie, imported.id, { chatInput: "The app shows an error" });
    expect(bug.outputs).toEqual({ queue: "engineering", label: "bug" });
    expect(JSON.stringify(openai.turns.at(-1))).toContain("You triage support messages");
  });

  it("refuses nodes with no counterpart, each by name and type, and creates nothing; ?partial=true imports the rest with labelled placeholders", async () => {
    const { cookie } = await builder.signUp();
    const count = async () =>
      (await json<{ data: unknown[] }>(await builder.request("/api/workflows", { cookie }), 200)).data.length;
    const refused = await json<{
      error: { code: string; message: string; details: { path: string; message: string }[] };
    }>(
      await builder.request("/api/workflows/import", {
        method: "POST",
        cookie,
        json: fixture("unsupported-nodes"),
      }),
      422,
    );
    expect(refused.error.code).toBe("n8n_unsupported_nodes");
    expect(refused.error.details).toEqual([
      { path: "nodes[2]", message: '"Log to sheet" (n8n-nodes-base.googleSheets): no counterpart here' },
      { path: "nodes[3]", message: '"Tell the team" (n8n-nodes-base.slack): no counterpart here' },
    ]);
    expect(await count()).toBe(0);

    const partial = await importN8n(cookie, fixture("unsupported-nodes"), "?partial=true");
    expect(await count()).toBe(1);
    expect(partial.import_report.n8n.nodes.map((node) => [node.name, node.outcome, node.node_type])).toEqual([
      ["Every weekday at 8", "mapped", "start"],
      ["Fetch sales", "mapped", "http"],
      ["Log to sheet", "placeholder", "code"],
      ["Tell the team", "placeholder", "code"],
    ]);
    expect(reportOf(partial, "Every weekday at 8")?.warnings?.[0]).toContain("add a schedule");
    expect(nodeOf(partial, "log_to_sheet")?.data).toMatchObject({ title: "Not imported: Log to sheet" });
    expect(String(nodeOf(partial, "tell_the_team")?.data.code)).toContain("PLACEHOLDER");
    expect(partial.import_report.references.unresolved).toMatchObject([
      { kind: "credential", name: "Shop API", action: "kept" },
    ]);
    // A placeholder fails the run, saying what to replace.
    const placeholderOnly = partial.graph.nodes.find((node) => node.id === "tell_the_team");
    expect(placeholderOnly?.position).toEqual({ x: 440, y: 100 });
  });

  it("a loop has no counterpart: refused, or with ?partial=true cut and said so", async () => {
    const { cookie } = await builder.signUp();
    const refused = await json<{ error: { code: string; details: { message: string }[] } }>(
      await builder.request("/api/workflows/import", {
        method: "POST",
        cookie,
        json: fixture("loop-over-items"),
      }),
      422,
    );
    expect(refused.error.code).toBe("n8n_unsupported_nodes");
    expect(refused.error.details.map((detail) => detail.message)).toEqual([
      '"Loop Over Items" (n8n-nodes-base.splitInBatches): no counterpart here',
      '"Wait" (n8n-nodes-base.wait): no counterpart here',
    ]);
    const partial = await importN8n(cookie, fixture("loop-over-items"), "?partial=true");
    expect(partial.import_report.warnings).toEqual([
      'The loop from "Wait" back to "Loop Over Items" was cut: workflows here do not loop.',
    ]);
    expect(partial.graph.nodes.map((node) => [node.id, node.type])).toEqual([
      ["start", "start"],
      ["sites", "code"],
      ["loop_over_items", "code"],
      ["ping", "http"],
      ["wait", "code"],
      ["end_wait", "end"],
    ]);
    expect(nodeOf(partial, "ping")?.data.url).toBe("{{loop_over_items.json.url}}");
  });

  it("an unknown document is refused with the path of the problem; a malformed n8n one too", async () => {
    const { cookie } = await builder.signUp();
    const bad = await json<{ error: { code: string; param: string } }>(
      await builder.request("/api/workflows/import", {
        method: "POST",
        cookie,
        json: { nodes: [{ name: "x" }], connections: {} },
      }),
      422,
    );
    expect(bad.error).toMatchObject({ code: "validation_failed", param: "nodes[0].type" });
    const noTrigger = await json<{ error: { code: string } }>(
      await builder.request("/api/workflows/import", {
        method: "POST",
        cookie,
        json: { nodes: [{ name: "Set", type: "n8n-nodes-base.set", parameters: {} }], connections: {} },
      }),
      422,
    );
    expect(noTrigger.error.code).toBe("n8n_import_failed");
  });
});
