import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import {
  FAKE_REPLICATE_MODELS,
  type FakeProvider,
  type FakeReplicate,
  lastUserText,
  startFakeOpenAI,
  startFakeReplicate,
} from "@app/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestBuilder, type TestBuilder } from "../../test/harness.ts";
import {
  createWorkflow,
  node,
  type RunJson,
  runGraph,
  singleNodeGraph,
} from "../../test/workflow-support.ts";

// The Tool node's tools that reach other features (generation, agents) and HTTP auth from stored
// credentials, against the real builder, fake Replicate and a fake OpenAI-protocol provider.

const IMAGE_MODEL = `${FAKE_REPLICATE_MODELS.image.owner}/${FAKE_REPLICATE_MODELS.image.name}`;

let builder: TestBuilder;
let replicate: FakeReplicate;
let provider: FakeProvider;
let echo: Server;
let echoUrl: string;
let alice: string;
let bob: string;

beforeAll(async () => {
  replicate = await startFakeReplicate({ apiToken: "r8_tools" });
  provider = await startFakeOpenAI({
    apiKey: "sk-tools-key-000001",
    script: (turn) => ({ text: `Agent heard: ${lastUserText(turn)}`, usage: { input: 9, output: 4 } }),
  });
  builder = await startTestBuilder({
    env: { ALLOW_PRIVATE_URLS: "1", REPLICATE_API_TOKEN: "r8_tools", REPLICATE_BASE_URL: replicate.baseUrl },
    deps: { generation: { pollBaseMs: 20, maxPollMs: 100, webhookFallbackMs: 100 } },
  });
  alice = (await builder.signUp()).cookie;
  bob = (await builder.signUp()).cookie;
  echo = createServer((req, res) => {
    res.setHeader("content-type", "application/json");
    res.end(
      JSON.stringify({
        authorization: req.headers.authorization ?? null,
        key: req.headers["x-api-key"] ?? null,
      }),
    );
  });
  await new Promise<void>((resolve) => echo.listen(0, "127.0.0.1", resolve));
  echoUrl = `http://127.0.0.1:${(echo.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => echo?.close(resolve));
  await builder?.stop();
  await replicate?.close();
  await provider?.close();
});

const run = (cookie: string, graph: unknown, inputs: Record<string, unknown> = {}) =>
  runGraph(builder, cookie, graph, inputs);

async function addCredential(cookie: string, body: Record<string, unknown>): Promise<Response> {
  return builder.request("/api/credentials", { method: "POST", cookie, json: body });
}

describe("HTTP auth from stored credentials", () => {
  it("sends a stored secret as bearer, basic and API-key auth without it appearing in the workflow", async () => {
    const created = await addCredential(alice, {
      provider: "http",
      api_key: "tok-stored-0123456789",
      name: "CRM",
    });
    expect(created.status, await created.clone().text()).toBe(201);
    const credential = (await created.json()) as { id: string; provider: string; key_hint: string };
    expect(credential.provider).toBe("http");
    expect(credential.key_hint).not.toContain("0123456");

    const bearer = await run(
      alice,
      singleNodeGraph(
        node("call", "http", {
          method: "GET",
          url: echoUrl,
          auth: { type: "bearer", credential_id: credential.id },
        }),
        { auth: "{{call.json.authorization}}" },
      ),
    );
    expect(bearer.outputs).toEqual({ auth: "Bearer tok-stored-0123456789" });

    const basic = await run(
      alice,
      singleNodeGraph(
        node("call", "http", {
          method: "GET",
          url: echoUrl,
          auth: { type: "basic", username: "svc", credential_id: credential.id },
        }),
        { auth: "{{call.json.authorization}}" },
      ),
    );
    expect(basic.outputs).toEqual({
      auth: `Basic ${Buffer.from("svc:tok-stored-0123456789").toString("base64")}`,
    });

    const apiKey = await run(
      alice,
      singleNodeGraph(
        node("call", "tool", {
          tool: "http_request",
          args: {
            method: "GET",
            url: echoUrl,
            auth: { type: "api_key", header: "X-Api-Key", credential_id: credential.id },
          },
        }),
        { key: "{{call.json.key}}" },
      ),
    );
    expect(apiKey.outputs).toEqual({ key: "tok-stored-0123456789" });
  });

  it("fails the node when the credential belongs to another workspace, and sends nothing", async () => {
    const created = await addCredential(bob, { provider: "http", api_key: "bobs-secret-token-000" });
    const bobsCredential = ((await created.json()) as { id: string }).id;
    const result = await run(
      alice,
      singleNodeGraph(
        node("call", "http", {
          method: "GET",
          url: echoUrl,
          auth: { type: "bearer", credential_id: bobsCredential },
        }),
        { auth: "{{call.json.authorization}}" },
      ),
    );
    expect(result.status).toBe("failed");
    const failed = result.nodes.find((n) => n.node_id === "call");
    expect(failed?.error?.code).toBe("credential_unavailable");
    expect(JSON.stringify(result)).not.toContain("bobs-secret-token");
  });

  it("refuses a node giving both an inline secret and a credential, and an HTTP secret with a base_url", async () => {
    const response = await builder.request("/api/workflows", {
      method: "POST",
      cookie: alice,
      json: {
        name: "both",
        graph: singleNodeGraph(
          node("call", "http", {
            method: "GET",
            url: echoUrl,
            auth: { type: "bearer", token: "inline", credential_id: "cred_x" },
          }),
          {},
        ),
      },
    });
    expect(response.status).toBe(422);
    expect(await response.text()).toContain("either token or credential_id");
    const withBaseUrl = await addCredential(alice, {
      provider: "http",
      api_key: "tok-000000000000",
      base_url: "https://example.com",
    });
    expect(withBaseUrl.status).toBe(422);
    expect(((await withBaseUrl.json()) as { error: { param: string } }).error.param).toBe("base_url");
  });

  it("refuses to check an HTTP secret against a provider", async () => {
    const created = await addCredential(alice, { provider: "http", api_key: "tok-check-0000000" });
    const id = ((await created.json()) as { id: string }).id;
    const checked = await builder.request(`/api/credentials/${id}/test`, { method: "POST", cookie: alice });
    expect(checked.status).toBe(422);
  });
});

describe("generate_image tool", () => {
  it("generates an image, waits for it and answers the builder's own copy", async () => {
    replicate.outcome = () => "instant";
    const result = await run(
      alice,
      singleNodeGraph(
        node("draw", "tool", {
          tool: "generate_image",
          args: { prompt: "a fox, {{start.q}}", model: IMAGE_MODEL },
        }),
        { url: "{{draw.url}}", id: "{{draw.generation_id}}" },
        [{ name: "q", type: "string" }],
      ),
      { q: "watercolour" },
    );
    expect(result.status, JSON.stringify(result.error)).toBe("succeeded");
    const url = String(result.outputs?.url);
    expect(url).toMatch(/\/api\/files\//);
    const file = await builder.request(new URL(url).pathname, { cookie: alice });
    expect(file.status).toBe(200);
    expect(file.headers.get("content-type")).toContain("image/png");
    const prediction = [...replicate.predictions.values()].at(-1);
    expect(prediction?.input.prompt).toBe("a fox, watercolour");
    // The generation is the workspace's like any other: in its gallery, not in another's.
    const generation = await builder.request(`/api/generations/${String(result.outputs?.id)}`, {
      cookie: alice,
    });
    expect(generation.status).toBe(200);
    const foreign = await builder.request(`/api/generations/${String(result.outputs?.id)}`, { cookie: bob });
    expect(foreign.status).toBe(404);
  });

  it("keeps waiting while the prediction runs and finishes when Replicate does", async () => {
    replicate.outcome = () => "manual";
    const workflowId = await createWorkflow(
      builder,
      alice,
      singleNodeGraph(
        node("draw", "tool", { tool: "generate_image", args: { prompt: "slow", model: IMAGE_MODEL } }),
        {
          url: "{{draw.url}}",
        },
      ),
    );
    const pending = builder.request(`/api/workflows/${workflowId}/runs`, {
      method: "POST",
      cookie: alice,
      json: { inputs: {} },
    });
    let prediction = [...replicate.predictions.values()].find((p) => p.input.prompt === "slow");
    while (!prediction) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      prediction = [...replicate.predictions.values()].find((p) => p.input.prompt === "slow");
    }
    await replicate.complete(prediction.id);
    const result = (await (await pending).json()) as RunJson;
    expect(result.status).toBe("succeeded");
    expect(String(result.outputs?.url)).toMatch(/\/api\/files\//);
  });

  it("fails the node with Replicate's reason when the generation fails", async () => {
    replicate.outcome = () => ({ error: "NSFW content detected" });
    const result = await run(
      alice,
      singleNodeGraph(
        node("draw", "tool", { tool: "generate_image", args: { prompt: "bad", model: IMAGE_MODEL } }),
        {
          url: "{{draw.url}}",
        },
      ),
    );
    expect(result.status).toBe("failed");
    const failed = result.nodes.find((n) => n.node_id === "draw");
    expect(failed?.error?.code).toBe("generation_failed");
    expect(failed?.error?.message).toContain("NSFW content detected");
  });
});

describe("run_agent tool", () => {
  it("runs a turn of the workspace's agent and answers its reply and conversation", async () => {
    const credential = await addCredential(alice, {
      provider: "openai-compatible",
      api_key: "sk-tools-key-000001",
      base_url: provider.baseUrl,
    });
    expect(credential.status).toBe(201);
    const agent = await builder.request("/api/agents", {
      method: "POST",
      cookie: alice,
      json: { name: "Echo", provider: "openai-compatible", model: "fake-model", instructions: "Repeat." },
    });
    expect(agent.status, await agent.clone().text()).toBe(201);
    const agentId = ((await agent.json()) as { id: string }).id;

    const result = await run(
      alice,
      singleNodeGraph(
        node("ask", "tool", { tool: "run_agent", args: { agent_id: agentId, message: "hello {{start.q}}" } }),
        { text: "{{ask.text}}", conversation: "{{ask.conversation_id}}" },
        [{ name: "q", type: "string" }],
      ),
      { q: "world" },
    );
    expect(result.status, JSON.stringify(result.error)).toBe("succeeded");
    expect(result.outputs?.text).toBe("Agent heard: hello world");
    const conversation = await builder.request(`/api/conversations/${String(result.outputs?.conversation)}`, {
      cookie: alice,
    });
    expect(conversation.status).toBe(200);

    // Bob's workflow cannot reach Alice's agent: named, it is refused when saved; templated, when run.
    const named = await builder.request("/api/workflows", {
      method: "POST",
      cookie: bob,
      json: {
        name: "foreign",
        graph: singleNodeGraph(
          node("ask", "tool", { tool: "run_agent", args: { agent_id: agentId, message: "hi" } }),
          {
            text: "{{ask.text}}",
          },
        ),
      },
    });
    expect(named.status).toBe(422);
    expect(await named.json()).toMatchObject({ error: { param: "graph.nodes[1].data.args.agent_id" } });
    const foreign = await run(
      bob,
      singleNodeGraph(
        node("ask", "tool", { tool: "run_agent", args: { agent_id: "{{start.q}}", message: "hi" } }),
        { text: "{{ask.text}}" },
        [{ name: "q", type: "string" }],
      ),
      { q: agentId },
    );
    expect(foreign.status).toBe("failed");
    expect(foreign.nodes.find((n) => n.node_id === "ask")?.error?.code).toBe("agent_not_found");
  });
});
