import { listen, type RunningServer } from "@app/http";
import {
  type FakeProvider,
  isAfterToolResult,
  lastUserText,
  startFakeMcp,
  startFakeOpenAI,
} from "@app/testing";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { type CallToolResult, ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestBuilder, type TestBuilder } from "../../test/harness.ts";
import { edge, node } from "../../test/workflow-support.ts";
import { type BuilderApp, createBuilderApp } from "../app.ts";

let builder: TestBuilder;
let openai: FakeProvider;
let alice: { cookie: string; key: string };
let bob: { cookie: string; key: string };
const clients: Client[] = [];

beforeAll(async () => {
  openai = await startFakeOpenAI({ apiKey: "sk-compat-key-0001" });
  openai.script = (turn) => ({ text: `You said: ${lastUserText(turn)}` });
  builder = await startTestBuilder({ env: { ALLOW_PRIVATE_URLS: "1" } });
  alice = await userWithKey();
  bob = await userWithKey();
});

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close().catch(() => {})));
  await builder?.stop();
  await openai?.close();
});

async function userWithKey(): Promise<{ cookie: string; key: string }> {
  const { cookie } = await builder.signUp();
  const created = await builder.request("/api/keys", { method: "POST", cookie, json: { name: "mcp" } });
  expect(created.status).toBe(201);
  const { key } = (await created.json()) as { key: string };
  const credential = await builder.request("/api/credentials", {
    method: "POST",
    cookie,
    json: { provider: "openai-compatible", api_key: "sk-compat-key-0001", base_url: openai.baseUrl },
  });
  expect(credential.status).toBe(201);
  return { cookie, key };
}

async function post(cookie: string, path: string, json: Record<string, unknown>, method = "POST") {
  const response = await builder.request(path, { method, cookie, json });
  expect(response.status, await response.clone().text()).toBeLessThan(300);
  return (await response.json()) as { id: string };
}

function agent(cookie: string, name: string, isExposed: boolean) {
  return post(cookie, "/api/agents", {
    name,
    provider: "openai-compatible",
    model: "llama3.2",
    mcp_exposed: isExposed,
  });
}

const greetingGraph = {
  nodes: [
    node("start", "start", {
      inputs: [{ name: "person", type: "string", required: true, description: "Who to greet" }],
    }),
    node("now", "tool", { tool: "current_time", args: {} }),
    node("done", "end", { outputs: [{ name: "greeting", value: "Hello {{start.person}}" }] }),
  ],
  edges: [edge("start", "now"), edge("now", "done")],
};

async function connect(key: string | undefined): Promise<Client> {
  const client = new Client({ name: "test-client", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(`${builder.url}/api/mcp`), {
    requestInit: key ? { headers: { authorization: `Bearer ${key}` } } : {},
  });
  await client.connect(transport);
  clients.push(client);
  return client;
}

describe("the builder as an MCP server", () => {
  it("lists the exposed agent and workflow of the key's workspace and calls both", async () => {
    const exposed = await agent(alice.cookie, "Support Bot", true);
    await agent(alice.cookie, "Hidden Helper", false);
    await agent(bob.cookie, "Bob's Agent", true);
    await post(alice.cookie, "/api/workflows", { name: "Greeter", graph: greetingGraph, mcp_exposed: true });

    const client = await connect(alice.key);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(["support_bot", "greeter"]);
    const greeter = tools.find((tool) => tool.name === "greeter");
    expect(greeter?.inputSchema).toEqual({
      type: "object",
      properties: { person: { type: "string", description: "Who to greet" } },
      required: ["person"],
    });

    const answer = (await client.callTool({
      name: "support_bot",
      arguments: { message: "ping" },
    })) as CallToolResult;
    expect(answer.isError).toBeFalsy();
    expect(answer.content).toEqual([{ type: "text", text: "You said: ping" }]);
    const conversationId = (answer.structuredContent as { conversation_id: string }).conversation_id;
    const stored = await builder.request(`/api/agents/${exposed.id}/conversations`, { cookie: alice.cookie });
    expect(((await stored.json()) as { data: { id: string }[] }).data.map((c) => c.id)).toContain(
      conversationId,
    );

    const progress: number[] = [];
    const run = (await client.callTool({ name: "greeter", arguments: { person: "Ada" } }, undefined, {
      onprogress: (update) => progress.push(update.progress),
    })) as CallToolResult;
    expect(run.isError).toBeFalsy();
    expect(run.structuredContent).toEqual({ greeting: "Hello Ada" });
    expect(progress.length).toBeGreaterThanOrEqual(2);
    // Both land in the workspace's logs as MCP's.
    const logged = await builder.request(`/api/conversations/${conversationId}`, { cookie: alice.cookie });
    expect(await logged.json()).toMatchObject({ source: "mcp", app_id: null, version: null });
    const mcpRuns = await builder.request("/api/runs?trigger=mcp", { cookie: alice.cookie });
    expect(((await mcpRuns.json()) as { data: { trigger: string }[] }).data).toHaveLength(1);

    const runs = await builder.request("/api/workflows", { cookie: alice.cookie });
    const workflowId = ((await runs.json()) as { data: { id: string }[] }).data[0]?.id;
    const listed = await builder.request(`/api/workflows/${workflowId}/runs`, { cookie: alice.cookie });
    expect(((await listed.json()) as { data: { trigger: string }[] }).data[0]?.trigger).toBe("mcp");
  });

  it("reports progress while an exposed agent's turn calls its own tools", async () => {
    const tools = await startFakeMcp();
    try {
      const server = await post(alice.cookie, "/api/mcp-servers", { name: "Echo", url: tools.url });
      await post(alice.cookie, "/api/agents", {
        name: "Echo Agent",
        provider: "openai-compatible",
        model: "llama3.2",
        mcp_exposed: true,
        tools: [{ type: "mcp", server_id: server.id, tools: [{ name: "echo" }] }],
      });
      openai.script = (turn) =>
        isAfterToolResult(turn)
          ? { text: "echoed" }
          : turn.tools.includes("echo")
            ? { toolCalls: [{ name: "echo", input: { text: "hi" } }] }
            : { text: `You said: ${lastUserText(turn)}` };
      const client = await connect(alice.key);
      const messages: string[] = [];
      const answer = (await client.callTool({ name: "echo_agent", arguments: { message: "go" } }, undefined, {
        onprogress: (update) => messages.push(update.message ?? ""),
      })) as CallToolResult;
      expect(answer.content).toEqual([{ type: "text", text: "echoed" }]);
      expect(messages).toEqual(["tool echo finished"]);
      expect(tools.calls.map((call) => call.tool)).toEqual(["echo"]);
    } finally {
      openai.script = (turn) => ({ text: `You said: ${lastUserText(turn)}` });
      await tools.close();
    }
  });

  it("answers a workflow's bad inputs and an agent's missing message as tool errors", async () => {
    const client = await connect(alice.key);
    const run = (await client.callTool({ name: "greeter", arguments: { person: 7 } })) as CallToolResult;
    expect(run.isError).toBe(true);
    expect(JSON.stringify(run.content)).toContain("Input person must be a string");
    const ask = (await client.callTool({
      name: "support_bot",
      arguments: { message: "" },
    })) as CallToolResult;
    expect(ask.isError).toBe(true);
  });

  it("another workspace's key never sees this workspace's tools", async () => {
    const client = await connect(bob.key);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(["bob_s_agent"]);
    const call = (await client.callTool({
      name: "support_bot",
      arguments: { message: "hi" },
    })) as CallToolResult;
    expect(call.isError).toBe(true);
  });

  it("notifies open sessions when exposure changes", async () => {
    const client = await connect(alice.key);
    const changed = new Promise<void>((resolve) =>
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()),
    );
    const late = await agent(alice.cookie, "Late Agent", false);
    await post(alice.cookie, `/api/agents/${late.id}`, { mcp_exposed: true }, "PATCH");
    await changed;
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain("late_agent");
  });

  it("un-exposing a workflow by PATCH removes it from the list and notifies", async () => {
    const client = await connect(alice.key);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain("greeter");
    const changed = new Promise<void>((resolve) =>
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()),
    );
    const workflows = await builder.request("/api/workflows", { cookie: alice.cookie });
    const greeter = ((await workflows.json()) as { data: { id: string; name: string }[] }).data.find(
      (workflow) => workflow.name === "Greeter",
    );
    await post(alice.cookie, `/api/workflows/${greeter?.id}`, { mcp_exposed: false }, "PATCH");
    await changed;
    expect((await client.listTools()).tools.map((tool) => tool.name)).not.toContain("greeter");
    const call = (await client.callTool({ name: "greeter", arguments: { person: "Ada" } })) as CallToolResult;
    expect(call.isError).toBe(true);
  });

  it("a client without a key gets 401, and so does a session cookie", async () => {
    const error = await connect(undefined).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(StreamableHTTPError);
    expect((error as StreamableHTTPError).code).toBe(401);
    const initialize = {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x", version: "1" } },
    };
    const withCookie = await builder.request("/api/mcp", {
      method: "POST",
      cookie: alice.cookie,
      headers: { accept: "application/json, text/event-stream" },
      json: initialize,
    });
    expect(withCookie.status).toBe(401);
    expect(((await withCookie.json()) as { error: { code: string } }).error.code).toBe(
      "mcp_api_key_required",
    );
  });

  it("says how to authenticate on every 401 (WWW-Authenticate: Bearer), as MCP clients look for", async () => {
    const headers = { accept: "application/json, text/event-stream" };
    const anonymous = await builder.request("/api/mcp", { method: "POST", headers, json: {} });
    const withCookie = await builder.request("/api/mcp", {
      method: "POST",
      cookie: alice.cookie,
      headers,
      json: {},
    });
    const badKey = await builder.request("/api/mcp", {
      method: "POST",
      bearer: "sk_not_a_key",
      headers,
      json: {},
    });
    for (const response of [anonymous, withCookie, badKey]) expect(response.status).toBe(401);
    expect(anonymous.headers.get("www-authenticate")).toBe('Bearer realm="builder"');
    expect(withCookie.headers.get("www-authenticate")).toBe('Bearer realm="builder"');
    expect(badKey.headers.get("www-authenticate")).toBe('Bearer realm="builder", error="invalid_token"');
  });

  it("a body that is not JSON is a JSON-RPC parse error", async () => {
    const response = await builder.request("/api/mcp", {
      method: "POST",
      bearer: alice.key,
      headers: { accept: "application/json, text/event-stream", "content-type": "application/json" },
      body: "{not json",
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { code: number } }).error.code).toBe(-32700);
  });

  it("a session opened with one workspace's key is unknown to another workspace's key", async () => {
    const client = await connect(alice.key);
    const sessionId = (client.transport as StreamableHTTPClientTransport).sessionId ?? "";
    const response = await builder.request("/api/mcp", {
      method: "POST",
      bearer: bob.key,
      headers: { accept: "application/json, text/event-stream", "mcp-session-id": sessionId },
      json: { jsonrpc: "2.0", id: 2, method: "tools/list", params: {} },
    });
    expect(response.status).toBe(404);
  });
});

describe("the MCP endpoint on two builder processes", () => {
  let second: BuilderApp;
  let secondServer: RunningServer;

  beforeAll(async () => {
    // A second builder on the same database, as WEB_CONCURRENCY=2 or a second host runs one: it
    // shares no memory with the first but its database and secret.
    second = createBuilderApp(builder.deps);
    await second.start();
    secondServer = await listen(second.app.fetch, { port: 0, hostname: "127.0.0.1" });
  });
  afterAll(async () => {
    await secondServer?.close();
    await second?.stop();
  });

  /**
   * A client whose requests go to either process, as a load balancer may spread them: alternately,
   * or as `route` picks by method.
   */
  async function connectToBoth(
    key: string,
    route?: (method: string) => "first" | "second",
  ): Promise<{ client: Client; seen: Set<string> }> {
    const seen = new Set<string>();
    let turn = 0;
    const client = new Client({ name: "spread-client", version: "1.0.0" });
    const transport = new StreamableHTTPClientTransport(new URL(`${builder.url}/api/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
      fetch: (input, init) => {
        const pick = route ? route(init?.method ?? "GET") : turn++ % 2 === 0 ? "first" : "second";
        const target = pick === "first" ? builder.url : secondServer.url;
        seen.add(target);
        const url = new URL(typeof input === "string" ? input : input.toString());
        return fetch(`${target}${url.pathname}${url.search}`, init);
      },
    });
    await client.connect(transport);
    clients.push(client);
    return { client, seen };
  }

  it("serves a session's requests on whichever process they reach", async () => {
    const { client, seen } = await connectToBoth(alice.key);
    for (let i = 0; i < 3; i++) {
      expect((await client.listTools()).tools.map((tool) => tool.name)).toContain("echo_agent");
    }
    const call = (await client.callTool({
      name: "echo_agent",
      arguments: { message: "hi" },
    })) as CallToolResult;
    expect(call.isError).toBeFalsy();
    expect(seen.size).toBe(2);
  });

  it("notifies a session whose stream is held by the other process when exposure changes", async () => {
    // The notification stream (GET) on the second process; the change is made through the first.
    const { client } = await connectToBoth(alice.key, (method) => (method === "GET" ? "second" : "first"));
    const changed = new Promise<void>((resolve) =>
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()),
    );
    // Let the client open its notification stream before the change.
    await client.listTools();
    const late = await agent(alice.cookie, "Cross Process Agent", false);
    await post(alice.cookie, `/api/agents/${late.id}`, { mcp_exposed: true }, "PATCH");
    await changed;
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain("cross_process_agent");
  });

  it("refuses a session id another workspace opened, on either process", async () => {
    const { client } = await connectToBoth(alice.key);
    const sessionId = (client.transport as StreamableHTTPClientTransport).sessionId ?? "";
    expect(sessionId).not.toBe("");
    for (const url of [builder.url, secondServer.url]) {
      const response = await fetch(`${url}/api/mcp`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${bob.key}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-session-id": sessionId,
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list", params: {} }),
      });
      expect(response.status).toBe(404);
    }
  });
});
