import {
  type FakeMcp,
  type FakeProvider,
  type FakeTurn,
  freePort,
  isAfterToolResult,
  startFakeMcp,
  startFakeOpenAI,
} from "@app/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestBuilder, type TestBuilder } from "../../test/harness.ts";
import { node, nodeOf, runGraph, singleNodeGraph } from "../../test/workflow-support.ts";

const TOKEN = "mcp-bearer-token-for-the-agent-0042";
/** A hung tool must end the call, not the turn: short, so the test does not wait long. */
const CALL_TIMEOUT_MS = 400;

let builder: TestBuilder;
let openai: FakeProvider;
let open: FakeMcp;
let guarded: FakeMcp;
let alice: string;
let bob: string;

beforeAll(async () => {
  [openai, open, guarded] = await Promise.all([
    startFakeOpenAI({ apiKey: "sk-compat-key-0001" }),
    startFakeMcp(),
    startFakeMcp({ bearerToken: TOKEN }),
  ]);
  builder = await startTestBuilder({
    env: { ALLOW_PRIVATE_URLS: "1" },
    deps: { mcp: { callTimeoutMs: CALL_TIMEOUT_MS } },
  });
  alice = (await builder.signUp()).cookie;
  bob = (await builder.signUp()).cookie;
  const credential = await builder.request("/api/credentials", {
    method: "POST",
    cookie: alice,
    json: { provider: "openai-compatible", api_key: "sk-compat-key-0001", base_url: openai.baseUrl },
  });
  expect(credential.status).toBe(201);
});

afterAll(async () => {
  await builder?.stop();
  await Promise.all([openai?.close(), open?.close(), guarded?.close()]);
});

async function addServer(cookie: string, body: Record<string, unknown>): Promise<string> {
  const response = await builder.request("/api/mcp-servers", { method: "POST", cookie, json: body });
  expect(response.status, await response.clone().text()).toBe(201);
  return ((await response.json()) as { id: string }).id;
}

async function createAgent(tools: unknown[]): Promise<string> {
  const response = await builder.request("/api/agents", {
    method: "POST",
    cookie: alice,
    json: { name: "Tool user", provider: "openai-compatible", model: "llama3.2", tools },
  });
  expect(response.status, await response.clone().text()).toBe(201);
  return ((await response.json()) as { id: string }).id;
}

interface ToolCallJson {
  name: string;
  input: unknown;
  output: Record<string, unknown>;
  is_error: boolean;
  duration_ms: number | null;
}

async function chat(agentId: string, message: string) {
  const response = await builder.request(`/api/agents/${agentId}/chat`, {
    method: "POST",
    cookie: alice,
    json: { message },
  });
  expect(response.status, await response.clone().text()).toBe(200);
  return (await response.json()) as { message: { content: string; tool_calls: ToolCallJson[] } };
}

/** A model that calls `name` with `input` once, then answers with what the tool returned. */
function callOnce(name: string, input: Record<string, unknown>) {
  openai.script = (turn: FakeTurn) => {
    if (!isAfterToolResult(turn)) return { toolCalls: [{ name, input }] };
    const results = turn.messages.at(-1)?.toolResults ?? [];
    return { text: `tool said: ${JSON.stringify(results[0]?.output)}` };
  };
}

describe("MCP tools in agents", () => {
  it("offers every tool of a server that needs a bearer token, calls one and records the call", async () => {
    const serverId = await addServer(alice, {
      name: "Calculator",
      url: guarded.url,
      bearer_token: TOKEN,
      headers: { "X-Tenant": "acme" },
    });
    const agentId = await createAgent([{ type: "mcp", server_id: serverId }]);
    callOnce("add", { a: 2, b: 3 });
    const answer = await chat(agentId, "What is 2 + 3?");

    expect(openai.turns.at(-2)?.tools).toEqual(
      expect.arrayContaining(["echo", "add", "weather", "fail", "big", "wait"]),
    );
    const [call] = answer.message.tool_calls;
    expect(call).toMatchObject({
      name: "add",
      input: { a: 2, b: 3 },
      output: { result: "5", structured: { sum: 5 } },
      is_error: false,
    });
    expect(call?.duration_ms).toEqual(expect.any(Number));
    expect(answer.message.content).toContain('"sum":5');
    const received = guarded.calls.at(-1);
    expect(received).toMatchObject({
      tool: "add",
      arguments: { a: 2, b: 3 },
      authorization: `Bearer ${TOKEN}`,
    });
    expect(received?.headers["x-tenant"]).toBe("acme");
  });

  it("offers only the chosen tools, under a prefix, with fixed arguments that the model cannot change", async () => {
    const serverId = await addServer(alice, { name: "Weather", url: open.url });
    const agentId = await createAgent([
      {
        type: "mcp",
        server_id: serverId,
        prefix: "wx_",
        tools: [
          { name: "weather", description: "Weather in metric units.", fixed_arguments: { units: "metric" } },
        ],
      },
    ]);
    callOnce("wx_weather", { city: "Oslo", units: "imperial" });
    const answer = await chat(agentId, "Weather in Oslo?");
    expect(openai.turns.at(-2)?.tools).toEqual(["wx_weather"]);
    expect(open.calls.at(-1)).toMatchObject({
      tool: "weather",
      arguments: { city: "Oslo", units: "metric" },
    });
    expect(answer.message.tool_calls[0]?.output).toEqual({ result: "Oslo: sunny, 21 °C" });
  });

  it("a tool that reports an error reaches the model as a tool error, and the turn still answers", async () => {
    const serverId = await addServer(alice, { name: "Flaky", url: open.url });
    const agentId = await createAgent([{ type: "mcp", server_id: serverId, tools: [{ name: "fail" }] }]);
    callOnce("fail", {});
    const answer = await chat(agentId, "Try it");
    expect(answer.message.tool_calls[0]).toMatchObject({
      name: "fail",
      is_error: true,
      output: { error: "the upstream service is down" },
    });
    expect(answer.message.content).toContain("upstream service is down");
  });

  it("a server that is down gives the model a clear error naming it, and the turn still answers", async () => {
    const down = await startFakeMcp();
    const serverId = await addServer(alice, { name: "Down server", url: down.url });
    // The server listed its tools once, then went away.
    expect(
      (await builder.request(`/api/mcp-servers/${serverId}/test`, { method: "POST", cookie: alice })).status,
    ).toBe(200);
    await down.close();
    const agentId = await createAgent([{ type: "mcp", server_id: serverId }]);
    callOnce("echo", { text: "hello" });
    const answer = await chat(agentId, "Echo hello");
    expect(openai.turns.at(-2)?.tools).toContain("echo");
    const [call] = answer.message.tool_calls;
    expect(call?.is_error).toBe(true);
    expect(String(call?.output.error)).toContain('MCP server "Down server" could not be reached');
    expect(String(call?.output.error)).toContain("ECONNREFUSED");
  });

  it("a server that was never reached offers one tool that explains why, instead of nothing", async () => {
    const port = await freePort();
    const serverId = await addServer(alice, { name: "Never up", url: `http://127.0.0.1:${port}/mcp` });
    const agentId = await createAgent([{ type: "mcp", server_id: serverId }]);
    callOnce("mcp_unavailable", {});
    const answer = await chat(agentId, "Use your tools");
    expect(openai.turns.at(-2)?.tools).toEqual(["mcp_unavailable"]);
    expect(String(answer.message.tool_calls[0]?.output.error)).toContain('"Never up" could not be reached');
  });

  it("a tool that never answers times out as a tool error instead of hanging the turn", async () => {
    const serverId = await addServer(alice, { name: "Slow", url: open.url });
    const agentId = await createAgent([{ type: "mcp", server_id: serverId, tools: [{ name: "wait" }] }]);
    callOnce("wait", {});
    const answer = await chat(agentId, "Wait for it");
    open.release();
    const [call] = answer.message.tool_calls;
    expect(call?.is_error).toBe(true);
    expect(String(call?.output.error)).toContain('"Slow" did not answer in time');
  });

  it("a server that forgot the pooled session (a restart) is reconnected to without the model noticing", async () => {
    const serverId = await addServer(alice, { name: "Restarting", url: open.url });
    const agentId = await createAgent([{ type: "mcp", server_id: serverId, tools: [{ name: "echo" }] }]);
    callOnce("echo", { text: "one" });
    expect((await chat(agentId, "first")).message.tool_calls[0]?.is_error).toBe(false);
    await open.forgetSessions();
    callOnce("echo", { text: "two" });
    const answer = await chat(agentId, "second");
    expect(answer.message.tool_calls[0]).toMatchObject({ is_error: false, output: { result: "echo: two" } });
  });

  it("cuts a long result to the size limit", async () => {
    const serverId = await addServer(alice, { name: "Verbose", url: open.url });
    const agentId = await createAgent([{ type: "mcp", server_id: serverId, tools: [{ name: "big" }] }]);
    callOnce("big", { size: 100_000 });
    const answer = await chat(agentId, "Say a lot");
    const result = String(answer.message.tool_calls[0]?.output.result);
    expect(result.length).toBeLessThan(33_000);
    expect(result.endsWith("…[truncated]")).toBe(true);
  });

  it("another workspace's server is not used: the model is told it does not exist", async () => {
    const bobsServer = await addServer(bob, { name: "Bob's", url: open.url });
    const callsBefore = open.calls.length;
    const agentId = await createAgent([{ type: "mcp", server_id: bobsServer }]);
    callOnce("mcp_unavailable", {});
    const answer = await chat(agentId, "Use Bob's tools");
    expect(String(answer.message.tool_calls[0]?.output.error)).toContain(
      "no longer exists in this workspace",
    );
    expect(open.calls.length).toBe(callsBefore);
  });
});

describe("MCP tools in the workflow Tool node", () => {
  const mcpNode = (serverId: string, tool: string, args: Record<string, unknown>) =>
    node("call", "tool", { tool: "mcp_tool", args: { server_id: serverId, tool, arguments: args } });

  it("calls a tool with resolved arguments and outputs its text and structured result", async () => {
    const serverId = await addServer(alice, { name: "Calc", url: guarded.url, bearer_token: TOKEN });
    const run = await runGraph(
      builder,
      alice,
      singleNodeGraph(
        mcpNode(serverId, "add", { a: "{{start.a}}", b: 40 }),
        {
          sum: "{{call.structured.sum}}",
          text: "{{call.text}}",
        },
        [{ name: "a", type: "number" }],
      ),
      { a: 2 },
    );
    expect(run.status).toBe("succeeded");
    expect(run.outputs).toEqual({ sum: 42, text: "42" });
    expect(nodeOf(run, "call")?.outputs).toMatchObject({ result: { sum: 42 }, text: "42" });
  });

  it("a tool error fails the node with mcp_tool_error", async () => {
    const serverId = await addServer(alice, { name: "Flaky", url: open.url });
    const run = await runGraph(
      builder,
      alice,
      singleNodeGraph(mcpNode(serverId, "fail", {}), { out: "{{call.text}}" }),
    );
    expect(run.status).toBe("failed");
    expect(nodeOf(run, "call")?.error).toMatchObject({ code: "mcp_tool_error" });
    expect(nodeOf(run, "call")?.error?.message).toContain("the upstream service is down");
  });

  it("a server that is down fails the node with mcp_server_unreachable", async () => {
    const port = await freePort();
    const serverId = await addServer(alice, { name: "Gone", url: `http://127.0.0.1:${port}/mcp` });
    const run = await runGraph(
      builder,
      alice,
      singleNodeGraph(mcpNode(serverId, "echo", { text: "x" }), { out: "{{call.text}}" }),
    );
    expect(run.status).toBe("failed");
    expect(nodeOf(run, "call")?.error).toMatchObject({ code: "mcp_server_unreachable" });
  });

  it("another workspace's server fails the node with mcp_server_not_found", async () => {
    const bobsServer = await addServer(bob, { name: "Bob's", url: open.url });
    const run = await runGraph(
      builder,
      alice,
      singleNodeGraph(mcpNode(bobsServer, "echo", { text: "x" }), { out: "{{call.text}}" }),
    );
    expect(nodeOf(run, "call")?.error).toMatchObject({ code: "mcp_server_not_found" });
  });
});
