import { startTracing, type Tracing } from "@app/observability";
import {
  type FakeOtlpReceiver,
  type FakeProvider,
  startFakeOpenAI,
  startFakeOtlpReceiver,
} from "@app/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgentOnFake } from "../test/agent-support.ts";
import { startTestBuilder, type TestBuilder } from "../test/harness.ts";
import { createWorkflow, edge, node, runWorkflow } from "../test/workflow-support.ts";

let receiver: FakeOtlpReceiver;
let tracing: Tracing;
let builder: TestBuilder;
let openai: FakeProvider;

beforeAll(async () => {
  receiver = await startFakeOtlpReceiver();
  tracing = await startTracing({ service: "builder-test", endpoint: receiver.url });
  openai = await startFakeOpenAI({ apiKey: "sk-compat-good-key-0001" });
  builder = await startTestBuilder({ env: { ALLOW_PRIVATE_URLS: "1" } });
});
afterAll(async () => {
  await builder?.stop();
  await tracing?.shutdown();
  await Promise.all([openai?.close(), receiver?.close()]);
});

describe("OpenTelemetry traces over OTLP", () => {
  it("is off without an endpoint: nothing is loaded or exported", async () => {
    const off = await startTracing({ service: "x", endpoint: undefined });
    expect(off.isEnabled).toBe(false);
  });

  it("exports a trace per request with the request, workspace and run ids, model calls and outbound HTTP inside it", async () => {
    expect(tracing.isEnabled).toBe(true);
    const { cookie } = await builder.signUp();
    const agentId = await createAgentOnFake(builder, cookie, openai, "sk-compat-good-key-0001");
    openai.script = () => ({ text: "Hello." });
    const turn = await builder.request(`/api/agents/${agentId}/chat`, {
      method: "POST",
      cookie,
      json: { message: "Hi" },
    });
    expect(turn.status).toBe(200);
    const chatRequestId = turn.headers.get("request-id");

    const graph = {
      nodes: [
        node("start", "start", { inputs: [] }),
        node("done", "end", { outputs: [{ name: "x", value: "y" }] }),
      ],
      edges: [edge("start", "done")],
    };
    const workflowId = await createWorkflow(builder, cookie, graph);
    const runId = (await runWorkflow(builder, cookie, workflowId)).id;

    // Flushes the batch to the receiver.
    await tracing.shutdown();

    const spans = receiver.spans.filter((span) => span.service === "builder-test");
    const chat = spans.find((span) => span.name === "POST /api/agents/:id/chat");
    expect(chat).toBeDefined();
    expect(chat?.kind).toBe(2);
    expect(chat?.attributes).toMatchObject({
      "http.route": "/api/agents/:id/chat",
      "http.response.status_code": 200,
      "request.id": chatRequestId,
    });
    expect(String(chat?.attributes["workspace.id"])).toMatch(/^wsp_/);
    const inChat = spans.filter((span) => span.traceId === chat?.traceId);
    // The AI SDK's model-call span and the outbound HTTP call to the provider, in the request's trace.
    expect(inChat.some((span) => span.name.startsWith("ai.streamText"))).toBe(true);
    const outbound = inChat.find(
      (span) => span.kind === 3 && String(span.attributes["url.full"] ?? "").startsWith(openai.baseUrl),
    );
    expect(outbound).toBeDefined();
    // The statements the turn ran on the builder's database, as client spans of the same trace.
    const statements = inChat.filter((span) => span.attributes["db.system.name"] === "postgresql");
    expect(statements.length).toBeGreaterThan(0);
    expect(statements.every((span) => span.kind === 3 && span.attributes["db.namespace"] === "builder")).toBe(
      true,
    );
    expect(statements.some((span) => String(span.attributes["db.query.text"]).startsWith("select"))).toBe(
      true,
    );
    // Prompts and answers are the workspace's data: never exported.
    expect(JSON.stringify(inChat)).not.toContain("Answer briefly.");

    const runRequest = spans.find((span) => span.name === "POST /api/workflows/:id/runs");
    expect(runRequest?.attributes["run.id"]).toBe(runId);
    const workflowRun = spans.find((span) => span.name === "workflow.run");
    expect(workflowRun?.traceId).toBe(runRequest?.traceId);
    expect(workflowRun?.parentSpanId).toBe(runRequest?.spanId);
    expect(workflowRun?.attributes).toMatchObject({ "run.id": runId, "workflow.id": workflowId });
  });
});
