import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestBuilder, type TestBuilder } from "../test/harness.ts";
import { createBase } from "../test/knowledge-support.ts";
import { createWorkflow, node, singleNodeGraph } from "../test/workflow-support.ts";

// Saves that point at another workspace's things, at addresses the SSRF policy refuses, or that
// change nothing. The builder runs with ALLOW_PRIVATE_URLS off, as in production.

let builder: TestBuilder;
let alice: string;
let bob: string;
let bobsBase: string;
let bobsWorkflow: string;
let alicesAgent: string;
let alicesWorkflow: string;

type ErrorJson = { error: { code: string; param?: string; details?: { path: string; node_id?: string }[] } };

beforeAll(async () => {
  builder = await startTestBuilder();
  alice = (await builder.signUp()).cookie;
  bob = (await builder.signUp()).cookie;
  bobsBase = await createBase(builder, bob, { name: "Bob's" });
  bobsWorkflow = await createWorkflow(
    builder,
    bob,
    singleNodeGraph(node("n", "http", { method: "GET", url: "https://example.com/" }), {}),
  );
  alicesWorkflow = await createWorkflow(
    builder,
    alice,
    singleNodeGraph(node("n", "http", { method: "GET", url: "https://example.com/" }), {}),
  );
  const agent = await builder.request("/api/agents", {
    method: "POST",
    cookie: alice,
    json: { name: "Alice's", provider: "openai", model: "gpt-4o-mini" },
  });
  alicesAgent = ((await agent.json()) as { id: string }).id;
}, 120_000);
afterAll(() => builder?.stop());

async function expect422(response: Response, param: string) {
  const body = (await response.json()) as ErrorJson;
  expect(response.status, JSON.stringify(body)).toBe(422);
  expect(body.error).toMatchObject({ code: "validation_failed", param });
  return body;
}

describe("a PATCH that sets no known field", () => {
  it.each([
    ["/api/agents/{agent}", {}],
    ["/api/agents/{agent}", { nonsense: 1 }],
    ["/api/workflows/{workflow}", { unknown_field: "x" }],
  ])("PATCH %s %j → 422", async (template, body) => {
    const path = template.replace("{agent}", alicesAgent).replace("{workflow}", alicesWorkflow);
    const response = await builder.request(path, { method: "PATCH", cookie: alice, json: body });
    expect(response.status).toBe(422);
    expect(((await response.json()) as ErrorJson).error.code).toBe("validation_failed");
  });
});

describe("an agent save", () => {
  const agent = (extra: Record<string, unknown>) => ({
    name: "A",
    provider: "openai",
    model: "gpt-4o-mini",
    ...extra,
  });

  it("refuses another workspace's knowledge base, on create and on update", async () => {
    await expect422(
      await builder.request("/api/agents", {
        method: "POST",
        cookie: alice,
        json: agent({ knowledge_base_ids: [bobsBase] }),
      }),
      "knowledge_base_ids[0]",
    );
    await expect422(
      await builder.request(`/api/agents/${alicesAgent}`, {
        method: "PATCH",
        cookie: alice,
        json: { knowledge_base_ids: [bobsBase] },
      }),
      "knowledge_base_ids[0]",
    );
    const own = await createBase(builder, alice, { name: "Alice's" });
    const saved = await builder.request(`/api/agents/${alicesAgent}`, {
      method: "PATCH",
      cookie: alice,
      json: { knowledge_base_ids: [own] },
    });
    expect(saved.status).toBe(200);
  });

  it("refuses a workflow tool of another workspace's workflow", async () => {
    const tools = [{ type: "workflow", name: "wf", workflow_id: bobsWorkflow }];
    await expect422(
      await builder.request("/api/agents", { method: "POST", cookie: alice, json: agent({ tools }) }),
      "tools[0].workflow_id",
    );
  });

  it.each([
    "http://127.0.0.1:9/x",
    "http://169.254.169.254/latest/meta-data/{path}",
    "http://localhost/",
    "http://user:pass@example.com/",
  ])("refuses an HTTP tool calling %s", async (url) => {
    const tools = [{ type: "http", name: "call", method: "GET", url }];
    await expect422(
      await builder.request("/api/agents", { method: "POST", cookie: alice, json: agent({ tools }) }),
      "tools[0].url",
    );
  });

  it("keeps an HTTP tool whose host is a public name", async () => {
    const tools = [{ type: "http", name: "call", method: "GET", url: "https://93.184.215.14/{city}" }];
    const response = await builder.request("/api/agents", {
      method: "POST",
      cookie: alice,
      json: agent({ tools }),
    });
    expect(response.status).toBe(201);
  });
});

describe("a workflow save", () => {
  it("refuses an LLM node's knowledge base of another workspace, naming the node", async () => {
    const graph = singleNodeGraph(
      node("ask", "llm", {
        provider: "openai",
        model: "gpt-4o-mini",
        prompt: "hi",
        knowledge_base_ids: [bobsBase],
      }),
      {},
    );
    const body = await expect422(
      await builder.request("/api/workflows", { method: "POST", cookie: alice, json: { name: "w", graph } }),
      "graph.nodes[1].data.knowledge_base_ids[0]",
    );
    expect(body.error.details?.[0]?.node_id).toBe("ask");
  });

  it("refuses a knowledge_search tool node naming another workspace's or a made-up knowledge base, and keeps its own and a templated one", async () => {
    const own = await createBase(builder, alice, { name: "Alice's search" });
    const search = (ids: unknown) =>
      singleNodeGraph(
        node("find", "tool", {
          tool: "knowledge_search",
          args: { knowledge_base_ids: ids, query: "refunds" },
        }),
        {},
        [{ name: "base", type: "string" }],
      );
    for (const [ids, param] of [
      [[bobsBase], "graph.nodes[1].data.args.knowledge_base_ids[0]"],
      [
        [own, "{{start.base}}", "kb_01m8gp8z5279ga2b7qc7c1pzzz"],
        "graph.nodes[1].data.args.knowledge_base_ids[2]",
      ],
    ] as const) {
      const body = await expect422(
        await builder.request("/api/workflows", {
          method: "POST",
          cookie: alice,
          json: { name: "w", graph: search(ids) },
        }),
        param,
      );
      expect(body.error.details?.[0]?.node_id).toBe("find");
    }
    await expect422(
      await builder.request(`/api/workflows/${alicesWorkflow}`, {
        method: "PATCH",
        cookie: alice,
        json: { graph: search([bobsBase]) },
      }),
      "graph.nodes[1].data.args.knowledge_base_ids[0]",
    );
    for (const ids of [[own], [own, "{{start.base}}"]]) {
      const saved = await builder.request("/api/workflows", {
        method: "POST",
        cookie: alice,
        json: { name: "w", graph: search(ids) },
      });
      expect(saved.status, await saved.clone().text()).toBe(201);
    }
  });

  it("refuses a run_workflow tool node of another workspace's workflow, and an HTTP node to a metadata address", async () => {
    const tool = singleNodeGraph(
      node("sub", "tool", { tool: "run_workflow", args: { workflow_id: bobsWorkflow } }),
      {},
    );
    await expect422(
      await builder.request("/api/workflows", {
        method: "POST",
        cookie: alice,
        json: { name: "w", graph: tool },
      }),
      "graph.nodes[1].data.args.workflow_id",
    );
    const http = singleNodeGraph(
      node("call", "http", { method: "GET", url: "http://169.254.169.254/{{start.path}}" }),
      {},
      [{ name: "path", type: "string" }],
    );
    await expect422(
      await builder.request(`/api/workflows/${alicesWorkflow}`, {
        method: "PATCH",
        cookie: alice,
        json: { graph: http },
      }),
      "graph.nodes[1].data.url",
    );
    const templatedHost = singleNodeGraph(node("call", "http", { method: "GET", url: "{{start.url}}" }), {}, [
      { name: "url", type: "string" },
    ]);
    const saved = await builder.request(`/api/workflows/${alicesWorkflow}`, {
      method: "PATCH",
      cookie: alice,
      json: { graph: templatedHost },
    });
    expect(saved.status).toBe(200);
  });
});
