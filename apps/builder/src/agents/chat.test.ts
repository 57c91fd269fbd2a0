import type { Sandbox } from "@app/sandbox";
import {
  type FakeProvider,
  type FakeTurn,
  isAfterToolResult,
  lastUserText,
  startFakeAnthropic,
  startFakeGoogle,
  startFakeOpenAI,
} from "@app/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestBuilder, type TestBuilder } from "../../test/harness.ts";
import { createBase } from "../../test/knowledge-support.ts";
import type { KnowledgeSearch } from "../ports/tool-ports.ts";
import { defaultAiSettings } from "../providers/settings.ts";

// Knowledge bases (issue 7) are not built yet: this is a test double of that internal feature,
// ranking a fixed list of passages by the words they share with the query.
const PASSAGES = [
  {
    documentId: "doc_policy",
    documentName: "refund-policy.md",
    chunkId: "chk_1",
    position: 0,
    text: "Refunds are accepted within 30 days of purchase.",
  },
  {
    documentId: "doc_policy",
    documentName: "refund-policy.md",
    chunkId: "chk_2",
    position: 1,
    text: "Shipping costs are not refunded.",
  },
  {
    documentId: "doc_faq",
    documentName: "faq.md",
    chunkId: "chk_3",
    position: 0,
    text: "Support answers e-mail within one business day.",
  },
];
const knowledgeRequests: { workspaceId: string; knowledgeBaseIds: string[]; query: string; topK: number }[] =
  [];
const knowledge: KnowledgeSearch = {
  async search(request) {
    knowledgeRequests.push(request);
    const words = new Set(request.query.toLowerCase().split(/\W+/).filter(Boolean));
    return PASSAGES.map((passage) => ({
      ...passage,
      knowledgeBaseId: request.knowledgeBaseIds[0] ?? "",
      score:
        passage.text
          .toLowerCase()
          .split(/\W+/)
          .filter((word) => words.has(word)).length / words.size,
    }))
      .filter((passage) => passage.score > 0)
      .sort((a, b) => b.score - a.score)
      .slice(0, request.topK);
  },
};

/** The real sandbox of packages/sandbox when this host can run it; otherwise why not. */
async function probeSandbox(): Promise<{ runner?: Sandbox; close?: () => Promise<void>; reason: string }> {
  try {
    const { createSandbox } = await import("@app/sandbox");
    const sandbox = await createSandbox({ concurrency: 1 });
    const report = sandbox.runtimes();
    const javascript = report.languages.find((runtime) => runtime.language === "javascript");
    if (!report.isAvailable || !javascript?.isAvailable) {
      await sandbox.close();
      return { reason: `@app/sandbox cannot run javascript here: ${report.reason ?? javascript?.reason}` };
    }
    // The app wires its code tools (metered, like every sandbox run) from the sandbox it is given.
    return { runner: sandbox, close: () => sandbox.close(), reason: "" };
  } catch (error) {
    return { reason: `@app/sandbox is not usable: ${(error as Error).message}` };
  }
}
const sandbox = await probeSandbox();

let builder: TestBuilder;
let openai: FakeProvider;
let anthropic: FakeProvider;
let google: FakeProvider;
let alice: string;
let bob: string;
/** Alice's knowledge base; the fake search above answers for it. */
let policies: string;

beforeAll(async () => {
  [openai, anthropic, google] = await Promise.all([
    startFakeOpenAI({ apiKey: "sk-compat-good-key-0001" }),
    startFakeAnthropic({ apiKey: "sk-ant-good-key-0002" }),
    startFakeGoogle({ apiKey: "g-good-key-0003" }),
  ]);
  builder = await startTestBuilder({
    env: { ALLOW_PRIVATE_URLS: "1" },
    deps: { agentTools: { knowledge }, ...(sandbox.runner ? { sandbox: sandbox.runner } : {}) },
  });
  alice = (await builder.signUp()).cookie;
  bob = (await builder.signUp()).cookie;
  policies = await createBase(builder, alice, { name: "Policies" });
  await addCredential(alice, {
    provider: "openai-compatible",
    api_key: "sk-compat-good-key-0001",
    base_url: openai.baseUrl,
  });
  await addCredential(alice, {
    provider: "anthropic",
    api_key: "sk-ant-good-key-0002",
    base_url: anthropic.baseUrl,
  });
  await addCredential(alice, { provider: "google", api_key: "g-good-key-0003", base_url: google.baseUrl });
});
afterAll(async () => {
  await builder?.stop();
  await Promise.all([openai?.close(), anthropic?.close(), google?.close(), sandbox.close?.()]);
});

async function addCredential(cookie: string, body: Record<string, unknown>): Promise<string> {
  const response = await builder.request("/api/credentials", { method: "POST", cookie, json: body });
  expect(response.status, await response.clone().text()).toBe(201);
  return ((await response.json()) as { id: string }).id;
}

async function createAgent(cookie: string, body: Record<string, unknown>): Promise<string> {
  const response = await builder.request("/api/agents", {
    method: "POST",
    cookie,
    json: { name: "Helper", instructions: "You answer from the knowledge base.", ...body },
  });
  expect(response.status, await response.clone().text()).toBe(201);
  return ((await response.json()) as { id: string }).id;
}

interface ChatAnswer {
  conversation_id: string;
  steps: number;
  finish_reason: string;
  usage: { input_tokens: number; output_tokens: number };
  message: {
    id: string;
    content: string;
    tool_calls: { name: string; input: unknown; output: unknown; is_error: boolean }[];
    citations: Record<string, unknown>[];
  };
}

function chat(cookie: string, agentId: string, body: Record<string, unknown>, init: RequestInit = {}) {
  return builder.request(`/api/agents/${agentId}/chat`, { method: "POST", cookie, json: body, ...init });
}

async function chatJson(cookie: string, agentId: string, body: Record<string, unknown>): Promise<ChatAnswer> {
  const response = await chat(cookie, agentId, body);
  expect(response.status, await response.clone().text()).toBe(200);
  return (await response.json()) as ChatAnswer;
}

/** Parses a whole `text/event-stream` body into its events. */
async function readEvents(response: Response): Promise<{ event: string; data: Record<string, unknown> }[]> {
  const text = await response.text();
  return text
    .split("\n\n")
    .filter((block) => block.trim() !== "")
    .map((block) => {
      const event = /^event: (.*)$/m.exec(block)?.[1] ?? "message";
      const data = block
        .split("\n")
        .filter((line) => line.startsWith("data: "))
        .map((line) => line.slice(6))
        .join("\n");
      return { event, data: JSON.parse(data) as Record<string, unknown> };
    });
}

/** Tool results the model has seen since the latest user message. */
function resultsThisTurn(turn: FakeTurn) {
  const lastUser = turn.messages.findLastIndex((message) => message.role === "user");
  return turn.messages.slice(lastUser + 1).flatMap((message) => message.toolResults);
}

describe("agent chat", () => {
  it("searches the knowledge base, then answers from the passage (JSON)", async () => {
    const agentId = await createAgent(alice, {
      provider: "openai-compatible",
      model: "llama3.2",
      tools: [{ type: "knowledge_search", top_k: 2 }],
      knowledge_base_ids: [policies],
    });
    openai.script = (turn) => {
      const [found] = resultsThisTurn(turn);
      if (!found) return { toolCalls: [{ name: "knowledge_search", input: { query: "refund days" } }] };
      const { results } = found.output as { results: { text: string }[] };
      return { text: `According to the policy: ${results[0]?.text}` };
    };
    const answer = await chatJson(alice, agentId, { message: "How long do I have to ask for a refund?" });

    expect(answer.message.content).toBe(
      "According to the policy: Refunds are accepted within 30 days of purchase.",
    );
    expect(answer.steps).toBe(2);
    expect(answer.finish_reason).toBe("stop");
    expect(answer.message.tool_calls).toMatchObject([
      { name: "knowledge_search", input: { query: "refund days" }, is_error: false },
    ]);
    expect(knowledgeRequests.at(-1)).toMatchObject({
      knowledgeBaseIds: [policies],
      query: "refund days",
      topK: 2,
    });
    const secondCall = openai.turns.at(-1);
    expect(secondCall?.messages[0]).toMatchObject({
      role: "system",
      text: "You answer from the knowledge base.",
    });
    expect(secondCall?.tools).toEqual(["knowledge_search"]);
    expect(answer.usage.input_tokens).toBeGreaterThan(0);
    // Each passage the search answered, with what the studio needs to open it at its place.
    expect(answer.message.citations).toEqual([
      {
        knowledge_base_id: policies,
        document_id: "doc_policy",
        document_name: "refund-policy.md",
        chunk_id: "chk_1",
        position: 0,
        text: "Refunds are accepted within 30 days of purchase.",
      },
    ]);
  });

  it("documents citations in the OpenAPI document, on messages and the stream's finish event", async () => {
    const document = (await (await builder.request("/api/openapi.json")).json()) as {
      components: { schemas: Record<string, { properties?: Record<string, unknown>; required?: string[] }> };
    };
    const { Message, Citation } = document.components.schemas;
    expect(Message?.properties?.citations).toMatchObject({
      items: { $ref: "#/components/schemas/Citation" },
    });
    expect(Citation?.required?.sort()).toEqual(
      ["chunk_id", "document_id", "document_name", "knowledge_base_id", "position", "text"].sort(),
    );
    expect(JSON.stringify(document)).toContain("finish_reason, steps, usage, citations");
  });

  it("cites a passage found twice in one turn once, and cites nothing without a search", async () => {
    const agentId = await createAgent(alice, {
      provider: "openai-compatible",
      model: "llama3.2",
      tools: [{ type: "knowledge_search", top_k: 1 }],
      knowledge_base_ids: [policies],
    });
    openai.script = (turn) => {
      if (lastUserText(turn) === "hello") return { text: "Hi." };
      const found = resultsThisTurn(turn);
      if (found.length < 2)
        return { toolCalls: [{ name: "knowledge_search", input: { query: "support e-mail" } }] };
      return { text: "Within one business day." };
    };
    const answer = await chatJson(alice, agentId, { message: "How fast is support?" });
    expect(answer.message.tool_calls).toHaveLength(2);
    expect(answer.message.citations.map((citation) => citation.chunk_id)).toEqual(["chk_3"]);
    const plain = await chatJson(alice, agentId, { message: "hello" });
    expect(plain.message.citations).toEqual([]);
  });

  it.skipIf(!sandbox.runner)(
    `calls a code tool in the sandbox and a knowledge tool, then answers${sandbox.runner ? "" : ` (skipped: ${sandbox.reason})`}`,
    async () => {
      const agentId = await createAgent(alice, {
        provider: "anthropic",
        model: "claude-sonnet-4-5",
        knowledge_base_ids: [policies],
        tools: [
          { type: "knowledge_search" },
          {
            type: "code",
            name: "deadline",
            description: "Adds days to a day number.",
            language: "javascript",
            code: "function main(inputs) { return { day: inputs.start + inputs.days }; }",
            parameters: {
              type: "object",
              properties: { start: { type: "integer" }, days: { type: "integer" } },
              required: ["start", "days"],
            },
          },
        ],
      });
      anthropic.script = (turn) => {
        const results = resultsThisTurn(turn);
        if (results.length === 0)
          return { toolCalls: [{ name: "knowledge_search", input: { query: "refund days" } }] };
        if (results.length === 1)
          return { toolCalls: [{ name: "deadline", input: { start: 100, days: 30 } }] };
        const code = results[1]?.output as { output: { day: number } };
        return { text: `Your refund deadline is day ${code.output.day}.` };
      };
      const answer = await chatJson(alice, agentId, {
        message: "I bought it on day 100. Until when can I get a refund?",
      });

      expect(answer.message.content).toBe("Your refund deadline is day 130.");
      expect(answer.steps).toBe(3);
      expect(answer.message.tool_calls.map((call) => [call.name, call.output])).toEqual([
        ["knowledge_search", expect.objectContaining({ results: expect.any(Array) })],
        ["deadline", { output: { day: 130 } }],
      ]);
    },
  );

  it("streams conversation, tool call, tool result, text deltas and a finish with usage, in that order", async () => {
    const agentId = await createAgent(alice, {
      provider: "anthropic",
      model: "claude-sonnet-4-5",
      tools: [{ type: "knowledge_search" }],
      knowledge_base_ids: [policies],
    });
    anthropic.script = (turn) =>
      isAfterToolResult(turn)
        ? { text: "Shipping costs are not refunded, sorry." }
        : { toolCalls: [{ name: "knowledge_search", input: { query: "shipping refunded" } }] };
    const response = await chat(
      alice,
      agentId,
      { message: "Is shipping refunded?" },
      { headers: { accept: "text/event-stream" } },
    );
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const events = await readEvents(response);

    const order = events.map((event) => event.event).filter((name, index, all) => name !== all[index - 1]);
    expect(order).toEqual(["conversation", "tool_call", "tool_result", "text_delta", "finish"]);
    const deltas = events.filter((event) => event.event === "text_delta").map((event) => event.data.text);
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join("")).toBe("Shipping costs are not refunded, sorry.");
    expect(events.find((event) => event.event === "tool_call")?.data).toMatchObject({
      name: "knowledge_search",
      input: { query: "shipping refunded" },
    });
    const finish = events.at(-1)?.data as {
      usage: { input_tokens: number; output_tokens: number };
      steps: number;
      message_id: string;
      citations: { chunk_id: string; document_name: string }[];
    };
    expect(finish.citations.map((citation) => [citation.document_name, citation.chunk_id])).toEqual([
      ["refund-policy.md", "chk_2"],
    ]);
    expect(finish.steps).toBe(2);
    expect(finish.usage.output_tokens).toBeGreaterThan(0);
    expect(finish.usage.input_tokens).toBeGreaterThan(0);

    const conversationId = (events[0]?.data as { id: string } | undefined)?.id;
    const messages = (await (
      await builder.request(`/api/conversations/${conversationId}/messages`, { cookie: alice })
    ).json()) as {
      data: { id: string; role: string; content: string; citations: unknown[] }[];
    };
    expect(messages.data.map((message) => [message.role, message.content])).toEqual([
      ["assistant", "Shipping costs are not refunded, sorry."],
      ["user", "Is shipping refunded?"],
    ]);
    // A stored answer cites what the streamed one did.
    expect(messages.data[0]?.citations).toEqual(finish.citations);
    expect(messages.data[1]?.citations).toEqual([]);
    expect(messages.data[0]?.id).toBe(finish.message_id);
  });

  it("sends the last memory_turns turns of the conversation, and no older ones", async () => {
    const agentId = await createAgent(alice, {
      provider: "google",
      model: "gemini-2.5-flash",
      memory_turns: 2,
    });
    google.script = (turn) => ({ text: `echo ${lastUserText(turn)}` });
    let conversationId: string | undefined;
    for (const message of ["first", "second", "third", "fourth"]) {
      const answer = await chatJson(alice, agentId, {
        message,
        ...(conversationId ? { conversation_id: conversationId } : {}),
      });
      conversationId = answer.conversation_id;
    }
    const lastCall = google.turns.at(-1);
    expect(lastCall?.messages.map((message) => [message.role, message.text])).toEqual([
      ["system", "You answer from the knowledge base."],
      ["user", "second"],
      ["assistant", "echo second"],
      ["user", "third"],
      ["assistant", "echo third"],
      ["user", "fourth"],
    ]);
    const conversations = (await (
      await builder.request(`/api/agents/${agentId}/conversations`, { cookie: alice })
    ).json()) as {
      data: { id: string; title: string }[];
    };
    expect(conversations.data).toMatchObject([{ id: conversationId, title: "first" }]);
  });

  it("saves a model answer holding NUL or a lone surrogate with U+FFFD in their place, and answers it as saved", async () => {
    const agentId = await createAgent(alice, { provider: "openai-compatible", model: "llama3.2" });
    openai.script = () => ({ text: "a\u0000b \ud800c" });
    const answer = await chatJson(alice, agentId, { message: "Say something odd" });
    expect(answer.message.content).toBe("a\uFFFDb \uFFFDc");
    const messages = (await (
      await builder.request(`/api/conversations/${answer.conversation_id}/messages`, { cookie: alice })
    ).json()) as { data: { role: string; content: string }[] };
    expect(messages.data.map((message) => [message.role, message.content])).toEqual([
      ["assistant", "a\uFFFDb \uFFFDc"],
      ["user", "Say something odd"],
    ]);
  });

  it("remembers the tools it called in earlier turns, not only what it said", async () => {
    const agentId = await createAgent(alice, {
      provider: "openai-compatible",
      model: "llama3.2",
      tools: [{ type: "knowledge_search" }],
      knowledge_base_ids: [policies],
    });
    openai.script = (turn) =>
      isAfterToolResult(turn) || lastUserText(turn) === "thanks"
        ? { text: "done" }
        : { toolCalls: [{ name: "knowledge_search", input: { query: "support e-mail" } }] };
    const first = await chatJson(alice, agentId, { message: "How fast does support answer?" });
    await chatJson(alice, agentId, { message: "thanks", conversation_id: first.conversation_id });
    const roles = openai.turns.at(-1)?.messages.map((message) => message.role);
    expect(roles).toEqual(["system", "user", "assistant", "tool", "assistant", "user"]);
    expect(openai.turns.at(-1)?.messages[2]?.toolCalls).toEqual([
      { name: "knowledge_search", input: { query: "support e-mail" } },
    ]);
  });

  it("stops a model that keeps calling tools at the step limit", async () => {
    const agentId = await createAgent(alice, {
      provider: "openai-compatible",
      model: "llama3.2",
      tools: [{ type: "knowledge_search" }],
      knowledge_base_ids: [policies],
    });
    openai.script = () => ({ toolCalls: [{ name: "knowledge_search", input: { query: "more" } }] });
    const before = openai.turns.length;
    const answer = await chatJson(alice, agentId, { message: "Loop forever" });
    expect(answer.steps).toBe(defaultAiSettings.maxSteps);
    expect(answer.finish_reason).toBe("step_limit");
    expect(openai.turns.length - before).toBe(defaultAiSettings.maxSteps);
    expect(answer.message.tool_calls).toHaveLength(defaultAiSettings.maxSteps);
  });

  it("offers a workflow tool with its Start inputs as the arguments (names, types, required, descriptions), as /api/mcp does", async () => {
    const workflow = await builder.request("/api/workflows", {
      method: "POST",
      cookie: alice,
      json: {
        name: "Echo",
        graph: {
          nodes: [
            {
              id: "start",
              type: "start",
              position: { x: 0, y: 0 },
              data: {
                inputs: [
                  { name: "message", type: "string", required: true, description: "What to echo" },
                  { name: "times", type: "number", default: 1, description: "How often" },
                  { name: "loud", type: "boolean" },
                ],
              },
            },
            {
              id: "done",
              type: "end",
              position: { x: 0, y: 0 },
              data: { outputs: [{ name: "echo", value: "{{start.message}}" }] },
            },
          ],
          edges: [{ id: "e", source: "start", target: "done" }],
        },
      },
    });
    expect(workflow.status, await workflow.clone().text()).toBe(201);
    const workflowId = ((await workflow.json()) as { id: string }).id;
    const agentId = await createAgent(alice, {
      provider: "openai-compatible",
      model: "llama3.2",
      tools: [{ type: "workflow", name: "echo", workflow_id: workflowId }],
    });
    const schemas: unknown[] = [];
    openai.script = (turn) => {
      schemas.push(turn.toolSchemas.echo);
      const [result] = resultsThisTurn(turn);
      if (!result) return { toolCalls: [{ name: "echo", input: { message: "ping" } }] };
      return { text: JSON.stringify(result.output) };
    };
    const answer = await chatJson(alice, agentId, { message: "Echo ping" });
    expect(schemas[0]).toMatchObject({
      type: "object",
      properties: {
        message: { type: "string", description: "What to echo" },
        times: { type: "number", description: "How often", default: 1 },
        loud: { type: "boolean" },
      },
      required: ["message"],
    });
    expect(answer.message.tool_calls[0]).toMatchObject({
      name: "echo",
      is_error: false,
      output: { outputs: { echo: "ping" } },
    });
  });

  it("lets a tool failure reach the model as an error result instead of failing the turn", async () => {
    // The workflow exists when the agent is saved (a save naming none is refused) and is gone when called.
    const workflow = await builder.request("/api/workflows", {
      method: "POST",
      cookie: alice,
      json: {
        name: "Summarise",
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
    const agentId = await createAgent(alice, {
      provider: "openai-compatible",
      model: "llama3.2",
      tools: [{ type: "workflow", name: "summarise", workflow_id: workflowId }],
    });
    await builder.request(`/api/workflows/${workflowId}`, { method: "DELETE", cookie: alice });
    openai.script = (turn) => {
      const [result] = resultsThisTurn(turn);
      if (!result) return { toolCalls: [{ name: "summarise", input: { text: "x" } }] };
      return { text: `The tool said: ${(result.output as { error: string }).error}` };
    };
    const answer = await chatJson(alice, agentId, { message: "Summarise" });
    expect(answer.message.content).toBe(
      `The tool said: The tool failed: There is no workflow ${workflowId} in this workspace.`,
    );
    expect(answer.message.tool_calls[0]).toMatchObject({ name: "summarise", is_error: true });
  });
});

describe("provider errors", () => {
  it("answers 424 with the provider's message when the key is refused, to JSON and streaming clients alike", async () => {
    const { cookie } = await builder.signUp();
    await addCredential(cookie, {
      provider: "openai-compatible",
      api_key: "sk-wrong-key-9999",
      base_url: openai.baseUrl,
    });
    const agentId = await createAgent(cookie, { provider: "openai-compatible", model: "llama3.2" });
    for (const accept of ["application/json", "text/event-stream"]) {
      const response = await chat(cookie, agentId, { message: "hi" }, { headers: { accept } });
      expect(response.status, accept).toBe(424);
      const body = (await response.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe("provider_rejected_credentials");
      expect(body.error.message).toContain("Incorrect API key provided.");
      expect(body.error.message).not.toContain("sk-wrong-key-9999");
    }
  });

  it("answers 429 with the provider's Retry-After on a rate limit", async () => {
    const agentId = await createAgent(alice, { provider: "anthropic", model: "claude-sonnet-4-5" });
    anthropic.script = () => ({
      error: {
        status: 429,
        message: "Number of requests has exceeded your rate limit.",
        headers: { "retry-after": "7" },
      },
    });
    const response = await chat(alice, agentId, { message: "hi" });
    expect(response.status).toBe(429);
    expect(response.headers.get("retry-after")).toBe("7");
    expect(await response.json()).toMatchObject({
      error: {
        code: "provider_rate_limited",
        type: "rate_limit_error",
        message: expect.stringContaining("exceeded your rate limit"),
      },
    });
  });

  it("answers 502 (never a bare 500) when the provider fails", async () => {
    const agentId = await createAgent(alice, { provider: "google", model: "gemini-2.5-flash" });
    google.script = () => ({ error: { status: 500, message: "Internal error encountered." } });
    const response = await chat(alice, agentId, { message: "hi" });
    expect(response.status).toBe(502);
    expect(await response.json()).toMatchObject({
      error: { code: "provider_error", message: expect.stringContaining("Internal error encountered.") },
    });
  });

  it("answers 424 naming what to configure when the workspace has no key for the provider", async () => {
    const agentId = await createAgent(alice, { provider: "mistral", model: "mistral-small-latest" });
    const response = await chat(alice, agentId, { message: "hi" });
    expect(response.status).toBe(424);
    expect(await response.json()).toMatchObject({
      error: { code: "provider_not_configured", message: expect.stringContaining("MISTRAL_API_KEY") },
    });
  });

  it("aborts the provider call when the client disconnects, records the call as aborted and keeps the conversation", async () => {
    const agentId = await createAgent(alice, { provider: "openai-compatible", model: "llama3.2" });
    openai.script = () => ({ hang: true });
    const before = openai.turns.length;
    const controller = new AbortController();
    const pending = chat(
      alice,
      agentId,
      { message: "never answered" },
      {
        headers: { accept: "text/event-stream" },
        signal: controller.signal,
      },
    ).catch((error: unknown) => error);
    while (openai.turns.length === before) await new Promise((resolve) => setTimeout(resolve, 10));
    controller.abort();
    await pending;
    await openai.whenAborted();
    let calls: { status: string; agent_id: string }[] = [];
    while (!calls.some((call) => call.agent_id === agentId && call.status === "aborted")) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      calls = (
        (await (await builder.request("/api/usage/calls?limit=100", { cookie: alice })).json()) as {
          data: typeof calls;
        }
      ).data;
    }
    const conversations = (await (
      await builder.request(`/api/agents/${agentId}/conversations`, { cookie: alice })
    ).json()) as {
      data: { id: string }[];
    };
    const messages = (await (
      await builder.request(`/api/conversations/${conversations.data[0]?.id}/messages`, { cookie: alice })
    ).json()) as {
      data: unknown[];
    };
    expect(messages.data).toEqual([]);
    // The conversation's id went out in the first event, so it can be continued.
    openai.script = () => ({ text: "Here now." });
    const continued = await chatJson(alice, agentId, {
      message: "again",
      conversation_id: conversations.data[0]?.id,
    });
    expect(continued).toMatchObject({
      conversation_id: conversations.data[0]?.id,
      message: { content: "Here now." },
    });
  });

  it("answers 504 when the provider does not answer within the time limit", async () => {
    const slowBuilder = await startTestBuilder({
      env: { ALLOW_PRIVATE_URLS: "1" },
      deps: { ai: { ...defaultAiSettings, timeoutMs: 300 } },
    });
    try {
      const { cookie } = await slowBuilder.signUp();
      const credential = await slowBuilder.request("/api/credentials", {
        method: "POST",
        cookie,
        json: { provider: "openai-compatible", api_key: "sk-compat-good-key-0001", base_url: openai.baseUrl },
      });
      expect(credential.status).toBe(201);
      const agent = await slowBuilder.request("/api/agents", {
        method: "POST",
        cookie,
        json: { name: "Slow", provider: "openai-compatible", model: "llama3.2" },
      });
      const { id } = (await agent.json()) as { id: string };
      openai.script = () => ({ hang: true });
      const response = await slowBuilder.request(`/api/agents/${id}/chat`, {
        method: "POST",
        cookie,
        json: { message: "hi" },
      });
      expect(response.status).toBe(504);
      expect(await response.json()).toMatchObject({ error: { code: "provider_timeout", type: "api_error" } });
    } finally {
      await slowBuilder.stop();
    }
  });
});

describe("tenancy", () => {
  it("answers 404 for another user's agent and conversations, on every route", async () => {
    const agentId = await createAgent(alice, { provider: "openai-compatible", model: "llama3.2" });
    openai.script = () => ({ text: "private answer" });
    const { conversation_id: conversationId } = await chatJson(alice, agentId, {
      message: "secret question",
    });

    expect((await chat(bob, agentId, { message: "hi" })).status).toBe(404);
    expect((await builder.request(`/api/agents/${agentId}/conversations`, { cookie: bob })).status).toBe(404);
    for (const [method, path] of [
      ["GET", `/api/conversations/${conversationId}`],
      ["GET", `/api/conversations/${conversationId}/messages`],
      ["DELETE", `/api/conversations/${conversationId}`],
    ] as const) {
      const response = await builder.request(path, { method, cookie: bob });
      expect(response.status, `${method} ${path}`).toBe(404);
      expect(await response.json()).toMatchObject({ error: { code: "conversation_not_found" } });
    }
    // Bob cannot continue Alice's conversation through an agent of his own either.
    await addCredential(bob, {
      provider: "openai-compatible",
      api_key: "sk-compat-good-key-0001",
      base_url: openai.baseUrl,
    });
    const bobsAgent = await createAgent(bob, { provider: "openai-compatible", model: "llama3.2" });
    const callsBefore = openai.turns.length;
    const hijack = await chat(bob, bobsAgent, {
      message: "what did she ask?",
      conversation_id: conversationId,
    });
    expect(hijack.status).toBe(404);
    expect(openai.turns.length).toBe(callsBefore);
    const stillThere = await builder.request(`/api/conversations/${conversationId}/messages`, {
      cookie: alice,
    });
    expect(((await stillThere.json()) as { data: unknown[] }).data).toHaveLength(2);
  });

  it("continues a conversation only with the agent it belongs to", async () => {
    const first = await createAgent(alice, { provider: "openai-compatible", model: "llama3.2" });
    const second = await createAgent(alice, { provider: "openai-compatible", model: "llama3.2" });
    openai.script = () => ({ text: "ok" });
    const { conversation_id: conversationId } = await chatJson(alice, first, { message: "hello" });
    const callsBefore = openai.turns.length;
    const elsewhere = await chat(alice, second, { message: "and now?", conversation_id: conversationId });
    expect(elsewhere.status).toBe(404);
    expect(openai.turns.length).toBe(callsBefore);
    const again = await chatJson(alice, first, { message: "and now?", conversation_id: conversationId });
    expect(again.conversation_id).toBe(conversationId);
  });

  it("deletes a conversation with its messages", async () => {
    const agentId = await createAgent(alice, { provider: "openai-compatible", model: "llama3.2" });
    openai.script = () => ({ text: "ok" });
    const { conversation_id: conversationId } = await chatJson(alice, agentId, { message: "to be deleted" });
    expect(
      (await builder.request(`/api/conversations/${conversationId}`, { method: "DELETE", cookie: alice }))
        .status,
    ).toBe(204);
    expect(
      (await builder.request(`/api/conversations/${conversationId}/messages`, { cookie: alice })).status,
    ).toBe(404);
    const rest = await chat(alice, agentId, { message: "again", conversation_id: conversationId });
    expect(rest.status).toBe(404);
  });
});
