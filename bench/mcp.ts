// npm run bench -- mcp [--turns 200] [--seconds 10] [--clients 8]
// 1. What an MCP tool call adds to an agent turn in the builder, next to the same call made with the
//    official SDK's client directly (and the same two-step tool loop through the AI SDK directly):
//    all against one fake model that answers at once and one MCP server built with the SDK.
// 2. Tool calls per second through the builder's own MCP endpoint (/api/mcp) for a trivial workflow,
//    next to runs of the same workflow through POST /api/workflows/{id}/runs.
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { freePort, isAfterToolResult, startFakeMcp, startFakeOpenAI } from "@app/testing";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { jsonSchema, stepCountIs, streamText, tool } from "ai";
import { benchUser, option, printTable, startService, temporaryDataDir } from "./lib.ts";

const turns = Number(option("turns", "200"));
const warmup = Math.max(10, Math.floor(turns / 10));
const seconds = Number(option("seconds", "10"));
const clientCount = Number(option("clients", "8"));

const mcp = await startFakeMcp();
const fake = await startFakeOpenAI({
  script: (turn) =>
    turn.tools.includes("echo") && !isAfterToolResult(turn)
      ? { toolCalls: [{ name: "echo", input: { text: "ping" } }] }
      : { text: "Done." },
});
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const builder = await startService(
  "apps/builder/src/server.ts",
  {
    PORT: String(port),
    DATA_DIR: temporaryDataDir("bench-mcp"),
    PUBLIC_URL: base,
    ALLOW_PRIVATE_URLS: "1",
  },
  `${base}/healthz`,
);

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

async function connectClient(url: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: "bench", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

interface Case {
  name: string;
  run: () => Promise<void>;
  samples: number[];
}

const timed = (name: string, run: () => Promise<void>): Case => ({ name, run, samples: [] });

try {
  const { key } = await benchUser(base);
  const auth = { "content-type": "application/json", authorization: `Bearer ${key}` };
  const post = async (path: string, body: unknown) => {
    const response = await fetch(`${base}${path}`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify(body),
    });
    if (response.status >= 300) throw new Error(`${path}: ${response.status} ${await response.text()}`);
    return (await response.json()) as { id: string };
  };
  await post("/api/credentials", {
    provider: "openai-compatible",
    api_key: "sk-bench",
    base_url: fake.baseUrl,
  });
  const server = await post("/api/mcp-servers", { name: "Bench MCP", url: mcp.url });
  const plain = await post("/api/agents", {
    name: "Plain",
    provider: "openai-compatible",
    model: "bench-model",
  });
  const withTool = await post("/api/agents", {
    name: "With MCP",
    provider: "openai-compatible",
    model: "bench-model",
    tools: [{ type: "mcp", server_id: server.id, tools: [{ name: "echo" }] }],
  });

  // The same server through the SDK's client, connected once, as the builder's pool is.
  const direct = await connectClient(mcp.url);
  const model = createOpenAICompatible({ name: "bench", baseURL: fake.baseUrl, apiKey: "sk-bench" })(
    "bench-model",
  );
  const drain = async (result: { fullStream: AsyncIterable<unknown> }) => {
    for await (const _ of result.fullStream);
  };
  const chat = (agentId: string) => async () => {
    const response = await fetch(`${base}/api/agents/${agentId}/chat`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ message: "Hello" }),
    });
    const body = (await response.json()) as { message?: { tool_calls: { is_error: boolean }[] } };
    if (response.status !== 200 || body.message?.tool_calls.some((call) => call.is_error))
      throw new Error(`chat failed: ${JSON.stringify(body)}`);
  };

  const cases = [
    timed("SDK client.callTool directly", async () => {
      await direct.callTool({ name: "echo", arguments: { text: "ping" } });
    }),
    timed("AI SDK turn directly, no tools", () =>
      drain(streamText({ model, prompt: "Hello", maxRetries: 0 })),
    ),
    timed("AI SDK turn directly, echo tool through the SDK client", () =>
      drain(
        streamText({
          model,
          prompt: "Hello",
          maxRetries: 0,
          stopWhen: stepCountIs(5),
          tools: {
            echo: tool({
              inputSchema: jsonSchema<{ text: string }>({
                type: "object",
                properties: { text: { type: "string" } },
              }),
              execute: async (input) => (await direct.callTool({ name: "echo", arguments: input })).content,
            }),
          },
        }),
      ),
    ),
    timed("builder turn (JSON), no tools", chat(plain.id)),
    timed("builder turn (JSON), echo tool of the MCP server", chat(withTool.id)),
  ];
  for (let i = 0; i < warmup; i++) for (const each of cases) await each.run();
  for (let i = 0; i < turns; i++) {
    for (const each of cases) {
      const start = performance.now();
      await each.run();
      each.samples.push(performance.now() - start);
    }
  }
  const p50 = cases.map((each) => percentile(each.samples, 50));
  const [callDirect = 0, sdkPlain = 0, sdkTool = 0, builderPlain = 0, builderTool = 0] = p50;
  console.log(
    `\nmcp benchmark: ${turns} rounds of one sequential call per case after ${warmup} warm-up rounds (fake model and MCP server on loopback)\n`,
  );
  printTable(
    ["case", "p50 ms", "p99 ms"],
    cases.map((each, index) => [each.name, p50[index] ?? Number.NaN, percentile(each.samples, 99)]),
  );
  console.log("");
  printTable(
    ["what", "p50 ms"],
    [
      ["the tool step (second model call + MCP call), AI SDK directly", sdkTool - sdkPlain],
      ["the tool step (second model call + MCP call), through the builder", builderTool - builderPlain],
      [
        "added by the builder to the tool step (target ≤ 5 ms)",
        builderTool - builderPlain - (sdkTool - sdkPlain),
      ],
      ["for scale: one MCP call with the SDK client", callDirect],
    ],
  );

  // /api/mcp: tool calls per second for a trivial workflow.
  const workflow = await post("/api/workflows", {
    name: "Echo",
    mcp_exposed: true,
    graph: {
      nodes: [
        {
          id: "start",
          type: "start",
          position: { x: 0, y: 0 },
          data: { inputs: [{ name: "text", type: "string", required: true }] },
        },
        {
          id: "done",
          type: "end",
          position: { x: 200, y: 0 },
          data: { outputs: [{ name: "text", value: "{{start.text}}" }] },
        },
      ],
      edges: [{ id: "e", source: "start", target: "done" }],
    },
  });
  const throughput = async (name: string, call: (worker: number) => Promise<void>) => {
    const latencies: number[] = [];
    const end = performance.now() + seconds * 1000;
    await Promise.all(
      Array.from({ length: clientCount }, async (_, worker) => {
        while (performance.now() < end) {
          const start = performance.now();
          await call(worker);
          latencies.push(performance.now() - start);
        }
      }),
    );
    return [name, latencies.length / seconds, percentile(latencies, 50), percentile(latencies, 99)] as (
      | string
      | number
    )[];
  };
  const sessions = await Promise.all(
    Array.from({ length: clientCount }, () =>
      connectClient(`${base}/api/mcp`, { authorization: `Bearer ${key}` }),
    ),
  );
  const tools = await sessions[0]?.listTools();
  if (!tools?.tools.some((each) => each.name === "echo"))
    throw new Error("the workflow is not listed at /api/mcp");
  const viaMcp = await throughput("/api/mcp tools/call (a session per client)", async (worker) => {
    const result = await sessions[worker]?.callTool({ name: "echo", arguments: { text: "ping" } });
    if (result?.isError) throw new Error(JSON.stringify(result.content));
  });
  const viaApi = await throughput("POST /api/workflows/{id}/runs (baseline)", async () => {
    const response = await fetch(`${base}/api/workflows/${workflow.id}/runs`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ inputs: { text: "ping" } }),
    });
    if (response.status !== 200) throw new Error(`run failed: ${response.status}`);
    await response.arrayBuffer();
  });
  console.log(
    `\nA trivial workflow (start → end), ${clientCount} concurrent clients for ${seconds} s each, embedded database\n`,
  );
  printTable(["case", "calls/s", "p50 ms", "p99 ms"], [viaMcp, viaApi]);
  await Promise.all([direct, ...sessions].map((client) => client.close()));
} finally {
  await builder.stop();
  await Promise.all([mcp.close(), fake.close()]);
}
