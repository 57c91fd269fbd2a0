import { type FakeProvider, prometheusSample, startFakeOpenAI } from "@app/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgentOnFake } from "../test/agent-support.ts";
import { startTestBuilder, type TestBuilder } from "../test/harness.ts";
import { createWorkflow, edge, node, runWorkflow } from "../test/workflow-support.ts";

const TOKEN = "scrape-token-0123456789";

let builder: TestBuilder;
let openai: FakeProvider;

beforeAll(async () => {
  openai = await startFakeOpenAI({ apiKey: "sk-compat-good-key-0001" });
  builder = await startTestBuilder({ env: { ALLOW_PRIVATE_URLS: "1", METRICS_TOKEN: TOKEN } });
});
afterAll(async () => {
  await builder?.stop();
  await openai?.close();
});

describe("builder /metrics", () => {
  it("needs the METRICS_TOKEN bearer when one is set", async () => {
    const anonymous = await fetch(`${builder.url}/metrics`);
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toMatchObject({ error: { code: "unauthenticated" } });
    // An API key or session is not the metrics token.
    const { cookie } = await builder.signUp();
    expect((await builder.request("/metrics", { cookie })).status).toBe(401);
  });

  it("after a chat turn, a workflow run and a 404, reports each named series", async () => {
    const { cookie } = await builder.signUp();
    const agentId = await createAgentOnFake(builder, cookie, openai, "sk-compat-good-key-0001");
    openai.script = () => ({ text: "Hello." });
    const turn = await builder.request(`/api/agents/${agentId}/chat`, {
      method: "POST",
      cookie,
      json: { message: "Hi" },
    });
    expect(turn.status).toBe(200);

    const graph = {
      nodes: [
        node("start", "start", { inputs: [] }),
        node("done", "end", { outputs: [{ name: "x", value: "y" }] }),
      ],
      edges: [edge("start", "done")],
    };
    const workflowId = await createWorkflow(builder, cookie, graph);
    await runWorkflow(builder, cookie, workflowId);
    expect((await builder.request("/api/agents/agt_missing", { cookie })).status).toBe(404);

    const response = await fetch(`${builder.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(response.status).toBe(200);
    const text = await response.text();

    expect(
      prometheusSample(text, "http_request_duration_seconds_count", {
        method: "POST",
        route: "/api/agents/:id/chat",
        status: "200",
      }),
    ).toBeGreaterThanOrEqual(1);
    expect(
      prometheusSample(text, "http_request_duration_seconds_count", {
        route: "/api/agents/:id",
        status: "404",
      }),
    ).toBeGreaterThanOrEqual(1);
    expect(text).not.toContain("agt_missing");
    expect(prometheusSample(text, "agent_turns_total", { outcome: "completed" })).toBeGreaterThanOrEqual(1);
    expect(prometheusSample(text, "workflow_runs_total", { outcome: "succeeded" })).toBeGreaterThanOrEqual(1);
    expect(
      prometheusSample(text, "model_tokens_total", { provider: "openai-compatible", direction: "input" }),
    ).toBeGreaterThan(0);
    expect(prometheusSample(text, "credits_spent_total", { meter: "llm_tokens" })).toBeGreaterThan(0);
    expect(prometheusSample(text, "webhook_deliveries", { state: "pending" })).toBeGreaterThanOrEqual(0);
    expect(prometheusSample(text, "webhook_deliveries", { state: "parked" })).toBe(0);
    expect(
      prometheusSample(text, "webhook_deliveries_oldest_age_seconds", { state: "pending" }),
    ).toBeGreaterThanOrEqual(0);
    expect(prometheusSample(text, "ingestion_backlog")).toBe(0);
    expect(prometheusSample(text, "ingestion_backlog_oldest_age_seconds")).toBe(0);
    expect(prometheusSample(text, "generation_polling")).toBe(0);
    expect(prometheusSample(text, "generation_polling_oldest_age_seconds")).toBe(0);
    // The test builder has no sandbox: the series is declared, with no samples.
    expect(text).toContain("# TYPE sandbox_runs gauge");
    expect(prometheusSample(text, "db_pool_connections", { state: "total" })).toBeGreaterThanOrEqual(1);
    expect(prometheusSample(text, "nodejs_eventloop_lag_seconds")).toBeGreaterThanOrEqual(0);
    expect(prometheusSample(text, "metrics_collect_errors_total")).toBeUndefined();
  });
});
