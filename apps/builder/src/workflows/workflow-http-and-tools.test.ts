import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createSandbox, type Sandbox } from "@app/sandbox";
import { type FakeProvider, lastUserText, startFakeOpenAI } from "@app/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestBuilder, type TestBuilder } from "../../test/harness.ts";
import { createBase, uploadOk, waitForDocument } from "../../test/knowledge-support.ts";
import { createWorkflow, node, nodeOf, runGraph, singleNodeGraph } from "../../test/workflow-support.ts";

// The HTTP node's request shapes, retries, timeout and size cap against a real local server; the
// run_code and run_workflow tools; and an LLM node's knowledge-base context as the provider sees it.

let sandbox: Sandbox;
let builder: TestBuilder;
let provider: FakeProvider;
let target: Server;
let targetUrl: string;
let alice: string;
let bob: string;

interface SeenRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}
const seen: SeenRequest[] = [];
const hanging: ServerResponse[] = [];
const seenAt = (path: string) => seen.filter((request) => request.path === path);

/** More than the HTTP node's 10 MiB cap, sent chunked so only counting the bytes can catch it. */
const HUGE_BYTES = 11 * 1024 * 1024;

function streamHuge(res: ServerResponse): void {
  const chunk = Buffer.alloc(64 * 1024, "x");
  let sent = 0;
  const pump = () => {
    while (sent < HUGE_BYTES) {
      if (res.destroyed) return;
      sent += chunk.byteLength;
      if (!res.write(chunk)) {
        res.once("drain", pump);
        return;
      }
    }
    res.end();
  };
  res.setHeader("content-type", "text/plain");
  pump();
}

function answer(request: SeenRequest, res: ServerResponse): void {
  if (request.path === "/hang") {
    hanging.push(res);
    return;
  }
  if (request.path === "/drop" || request.path === "/drop-branch") {
    res.socket?.destroy();
    return;
  }
  if (request.path === "/huge") {
    streamHuge(res);
    return;
  }
  if (request.path === "/flaky") {
    res.statusCode = seenAt("/flaky").length <= 2 ? 503 : 200;
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify({ attempt: seenAt("/flaky").length }));
    return;
  }
  if (request.path === "/busy") {
    const isBusy = seenAt("/busy").length <= 2;
    res.statusCode = isBusy ? 503 : 200;
    if (isBusy) res.setHeader("retry-after", "1");
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify({ attempt: seenAt("/busy").length }));
    return;
  }
  if (request.path === "/unstorable") {
    res.setHeader("content-type", "application/json");
    res.end('{"text":"a\\u0000b","lone":"x\\ud800"}');
    return;
  }
  if (request.path === "/broken") {
    res.statusCode = 500;
    res.end("still broken");
    return;
  }
  res.setHeader("content-type", "application/json");
  res.end(JSON.stringify({ method: request.method, path: request.path }));
}

beforeAll(async () => {
  sandbox = await createSandbox({ uidBase: 1_690_000_000, concurrency: 1, warmPerLanguage: 0 });
  provider = await startFakeOpenAI({
    apiKey: "sk-http-tools-00001",
    script: (turn) => ({ text: `Answered: ${lastUserText(turn)}`, usage: { input: 20, output: 3 } }),
  });
  builder = await startTestBuilder({ env: { ALLOW_PRIVATE_URLS: "1" }, deps: { sandbox } });
  alice = (await builder.signUp()).cookie;
  bob = (await builder.signUp()).cookie;
  target = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => {
      body += chunk;
    });
    req.on("end", () => {
      const request = { method: req.method ?? "", path: req.url ?? "/", headers: req.headers, body };
      seen.push(request);
      answer(request, res);
    });
  });
  await new Promise<void>((resolve) => target.listen(0, "127.0.0.1", resolve));
  targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
}, 240_000);

afterAll(async () => {
  for (const res of hanging) res.end();
  target?.closeAllConnections();
  await new Promise((resolve) => target?.close(resolve));
  await builder?.stop();
  await provider?.close();
  await sandbox?.close();
});

const run = (cookie: string, graph: unknown, inputs: Record<string, unknown> = {}) =>
  runGraph(builder, cookie, graph, inputs);

describe("HTTP node against a real server", () => {
  it("sends the templated method, URL and headers, in the node and in the http_request tool", async () => {
    const viaNode = await run(
      alice,
      singleNodeGraph(
        node("call", "http", {
          method: "{{start.verb}}",
          url: `${targetUrl}/items/{{start.id}}`,
          headers: { "x-trace-id": "trace-{{start.id}}", "accept-language": "{{start.lang}}" },
        }),
        { status: "{{call.status}}", path: "{{call.json.path}}" },
        [
          { name: "verb", type: "string" },
          { name: "id", type: "string" },
          { name: "lang", type: "string" },
        ],
      ),
      { verb: "patch", id: "it-42", lang: "id-ID" },
    );
    expect(viaNode.status, JSON.stringify(viaNode.error)).toBe("succeeded");
    expect(viaNode.outputs).toEqual({ status: 200, path: "/items/it-42" });
    const [received] = seenAt("/items/it-42");
    expect(received?.method).toBe("PATCH");
    expect(received?.headers["x-trace-id"]).toBe("trace-it-42");
    expect(received?.headers["accept-language"]).toBe("id-ID");

    const viaTool = await run(
      alice,
      singleNodeGraph(
        node("call", "tool", {
          tool: "http_request",
          args: {
            method: "{{start.method}}",
            url: `${targetUrl}/tool-items`,
            headers: { "x-trace-id": "tool-{{start.method}}" },
          },
        }),
        { method: "{{call.json.method}}" },
        [{ name: "method", type: "string" }],
      ),
      { method: "DELETE" },
    );
    expect(viaTool.status, JSON.stringify(viaTool.error)).toBe("succeeded");
    expect(viaTool.outputs).toEqual({ method: "DELETE" });
    const [fromTool] = seenAt("/tool-items");
    expect(fromTool?.method).toBe("DELETE");
    expect(fromTool?.headers["x-trace-id"]).toBe("tool-DELETE");
  });

  it("refuses a method that is neither a known one nor a template when saved, and a templated one that resolves to none when run", async () => {
    const saved = await builder.request("/api/workflows", {
      method: "POST",
      cookie: alice,
      json: {
        name: "bad method",
        graph: singleNodeGraph(node("call", "http", { method: "FETCH", url: `${targetUrl}/x` }), {}),
      },
    });
    expect(saved.status).toBe(422);
    expect(await saved.text()).toMatch(/must be one of GET, POST, PUT, PATCH, DELETE, HEAD, or a template/);

    const before = seenAt("/never").length;
    const result = await run(
      alice,
      singleNodeGraph(node("call", "http", { method: "{{start.verb}}", url: `${targetUrl}/never` }), {}, [
        { name: "verb", type: "string" },
      ]),
      { verb: "TRACE" },
    );
    expect(result.status).toBe("failed");
    expect(nodeOf(result, "call")?.error).toMatchObject({ code: "invalid_method" });
    expect(nodeOf(result, "call")?.error?.message).toContain('"TRACE"');
    expect(seenAt("/never").length).toBe(before);
  });

  it("sends an object body as a form when the content type says so, and a string body as is", async () => {
    const form = await run(
      alice,
      singleNodeGraph(
        node("call", "http", {
          method: "POST",
          url: `${targetUrl}/form`,
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: { name: "{{start.name}}", count: 3, tags: ["a", "b"] },
        }),
        { status: "{{call.status}}" },
        [{ name: "name", type: "string" }],
      ),
      { name: "Ada & Bob = friends" },
    );
    expect(form.status, JSON.stringify(form.error)).toBe("succeeded");
    const [formRequest] = seenAt("/form");
    expect(formRequest?.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    expect(Object.fromEntries(new URLSearchParams(formRequest?.body))).toEqual({
      name: "Ada & Bob = friends",
      count: "3",
      tags: '["a","b"]',
    });

    const raw = await run(
      alice,
      singleNodeGraph(
        node("call", "http", {
          method: "PUT",
          url: `${targetUrl}/raw`,
          body: 'line one: {{start.name}}\n  {"not": "json"} — ünïcode\n',
        }),
        { status: "{{call.status}}" },
        [{ name: "name", type: "string" }],
      ),
      { name: "Ada" },
    );
    expect(raw.status, JSON.stringify(raw.error)).toBe("succeeded");
    const [rawRequest] = seenAt("/raw");
    expect(rawRequest?.headers["content-type"]).toBe("text/plain; charset=utf-8");
    expect(rawRequest?.body).toBe('line one: Ada\n  {"not": "json"} — ünïcode\n');
  });

  it("retries 503s and succeeds with the answer that finally came", async () => {
    const result = await run(
      alice,
      singleNodeGraph(node("call", "http", { method: "GET", url: `${targetUrl}/flaky`, retries: 2 }), {
        status: "{{call.status}}",
        attempt: "{{call.json.attempt}}",
      }),
    );
    expect(result.status, JSON.stringify(result.error)).toBe("succeeded");
    expect(nodeOf(result, "call")?.status).toBe("succeeded");
    expect(result.outputs).toEqual({ status: 200, attempt: 3 });
    expect(seenAt("/flaky")).toHaveLength(3);
  });

  it("a node retry waits what Retry-After asks (1 s) after each 503, records every attempt and sends one Idempotency-Key", async () => {
    const result = await run(
      alice,
      singleNodeGraph(
        {
          ...node("call", "http", { method: "GET", url: `${targetUrl}/busy` }),
          retry: { max_attempts: 3, backoff: "fixed", initial_ms: 10, max_ms: 5_000 },
        },
        { status: "{{call.status}}", attempt: "{{call.json.attempt}}" },
      ),
    );
    expect(result.status, JSON.stringify(result.error)).toBe("succeeded");
    expect(result.outputs).toEqual({ status: 200, attempt: 3 });
    const requests = seenAt("/busy");
    expect(requests).toHaveLength(3);
    expect(new Set(requests.map((request) => request.headers["idempotency-key"]))).toEqual(
      new Set([`${result.id}:call`]),
    );
    const stored = await builder.request(`/api/runs/${result.id}`, { cookie: alice });
    const { nodes } = (await stored.json()) as {
      nodes: {
        node_id: string;
        attempts: { attempt: number; error: { code: string } | null; started_at: string }[];
      }[];
    };
    const attempts = nodes.find((entry) => entry.node_id === "call")?.attempts ?? [];
    expect(attempts.map((entry) => [entry.attempt, entry.error?.code ?? null])).toEqual([
      [1, "http_status_503"],
      [2, "http_status_503"],
      [3, null],
    ]);
    const starts = attempts.map((entry) => Date.parse(entry.started_at));
    // Retry-After: 1, not the 10 ms of the policy's own backoff.
    expect((starts[1] ?? 0) - (starts[0] ?? 0)).toBeGreaterThanOrEqual(990);
    expect((starts[2] ?? 0) - (starts[1] ?? 0)).toBeGreaterThanOrEqual(990);
  });

  it("routes a node that failed under on_error: branch to its error edges, skipping its normal successor", async () => {
    const graph = {
      nodes: [
        node("start", "start", { inputs: [] }),
        { ...node("call", "http", { method: "GET", url: `${targetUrl}/drop-branch` }), on_error: "branch" },
        node("fine", "end", { outputs: [{ name: "status", value: "{{call.status}}" }] }),
        node("fallback", "end", { outputs: [{ name: "why", value: "{{call.error.code}}" }] }),
      ],
      edges: [
        { id: "e1", source: "start", target: "call" },
        { id: "e2", source: "call", target: "fine" },
        { id: "e3", source: "call", target: "fallback", source_handle: "error" },
      ],
    };
    const result = await run(alice, graph);
    expect(result.status, JSON.stringify(result.error)).toBe("succeeded");
    expect(result.outputs).toEqual({ why: "http_request_failed" });
    expect(nodeOf(result, "fine")?.status).toBe("skipped");
    expect(nodeOf(result, "call")).toMatchObject({
      status: "failed",
      outputs: { error: { code: "http_request_failed" } },
    });
  });

  it("answers the last 5xx once retries are exhausted, for the workflow to branch on", async () => {
    const result = await run(
      alice,
      singleNodeGraph(node("call", "http", { method: "GET", url: `${targetUrl}/broken`, retries: 1 }), {
        status: "{{call.status}}",
        body: "{{call.body}}",
      }),
    );
    expect(result.status, JSON.stringify(result.error)).toBe("succeeded");
    expect(result.outputs).toEqual({ status: 500, body: "still broken" });
    expect(seenAt("/broken")).toHaveLength(2);
  });

  it("fails the node with http_request_failed when every attempt loses the connection", async () => {
    const result = await run(
      alice,
      singleNodeGraph(node("call", "http", { method: "GET", url: `${targetUrl}/drop`, retries: 1 }), {
        status: "{{call.status}}",
      }),
    );
    expect(result.status).toBe("failed");
    expect(result.error).toMatchObject({ code: "http_request_failed", node_id: "call" });
    expect(seenAt("/drop")).toHaveLength(2);
  });

  it("fails the node with http_timeout when no attempt is answered in time", async () => {
    const result = await run(
      alice,
      singleNodeGraph(
        node("call", "http", { method: "GET", url: `${targetUrl}/hang`, timeout_ms: 200, retries: 1 }),
        { status: "{{call.status}}" },
      ),
    );
    expect(result.status).toBe("failed");
    expect(nodeOf(result, "call")?.error?.code).toBe("http_timeout");
    expect(result.error).toMatchObject({ code: "http_timeout", node_id: "call" });
    expect(seenAt("/hang")).toHaveLength(2);
  });

  it("fails the node with response_too_large when the body streams past 10 MiB", async () => {
    const result = await run(
      alice,
      singleNodeGraph(node("call", "http", { method: "GET", url: `${targetUrl}/huge` }), {
        body: "{{call.body}}",
      }),
    );
    expect(result.status).toBe("failed");
    expect(result.error).toMatchObject({ code: "response_too_large", node_id: "call" });
    // The run record holds the error, not the megabytes read before the cap.
    expect(JSON.stringify(result).length).toBeLessThan(100_000);
  });
});

describe("values PostgreSQL cannot store, produced at run time", () => {
  it("an HTTP response and a Code node's output holding NUL or a lone surrogate are recorded with U+FFFD in their place", async () => {
    const graph = {
      nodes: [
        node("start", "start", { inputs: [] }),
        node("call", "http", { method: "GET", url: `${targetUrl}/unstorable` }),
        node("calc", "code", {
          language: "javascript",
          code: 'function main() {\n  return { out: "a\\u0000b" };\n}\n',
          inputs: [],
          outputs: [{ name: "out", type: "string" }],
        }),
        node("done", "end", {
          outputs: [
            { name: "text", value: "{{call.json.text}}" },
            { name: "lone", value: "{{call.json.lone}}" },
            { name: "out", value: "{{calc.out}}" },
          ],
        }),
      ],
      edges: [
        { id: "a", source: "start", target: "call" },
        { id: "b", source: "call", target: "calc" },
        { id: "c", source: "calc", target: "done" },
      ],
    };
    const result = await run(alice, graph);
    expect(result.status).toBe("succeeded");
    const expected = { text: "a\uFFFDb", lone: "x\uFFFD", out: "a\uFFFDb" };
    expect(result.outputs).toEqual(expected);
    const stored = (await (await builder.request(`/api/runs/${result.id}`, { cookie: alice })).json()) as {
      outputs: unknown;
      nodes: { node_id: string; outputs: Record<string, unknown> | null }[];
    };
    expect(stored.outputs).toEqual(expected);
    expect(stored.nodes.find((n) => n.node_id === "calc")?.outputs).toEqual({ out: "a\uFFFDb" });
  });
});

describe("run_code and run_workflow tools", () => {
  it("runs Python in the sandbox and answers its result and stdout", { timeout: 120_000 }, async () => {
    const result = await run(
      alice,
      singleNodeGraph(
        node("calc", "tool", {
          tool: "run_code",
          args: {
            language: "python",
            code: "def main(inputs):\n    print('doubling', inputs['n'])\n    return {'double': inputs['n'] * 2}\n",
            inputs: { n: "{{start.n}}" },
          },
        }),
        { double: "{{calc.result.double}}", stdout: "{{calc.stdout}}" },
        [{ name: "n", type: "number" }],
      ),
      { n: 21 },
    );
    expect(result.status, JSON.stringify(result.error)).toBe("succeeded");
    expect(result.outputs).toEqual({ double: 42, stdout: "doubling 21\n" });
  });

  it("runs another workflow of the workspace and uses its outputs", async () => {
    const child = await createWorkflow(
      builder,
      alice,
      singleNodeGraph(
        node("clock", "tool", { tool: "current_time", args: { timezone: "{{start.tz}}" } }),
        { greeting: "hello {{start.name}}", tz: "{{clock.timezone}}" },
        [
          { name: "name", type: "string" },
          { name: "tz", type: "string" },
        ],
      ),
    );
    const parent = await run(
      alice,
      singleNodeGraph(
        node("sub", "tool", {
          tool: "run_workflow",
          args: { workflow_id: child, inputs: { name: "{{start.name}}", tz: "Asia/Jakarta" } },
        }),
        { said: "{{sub.result.greeting}} from {{sub.result.tz}}", child_run: "{{sub.run_id}}" },
        [{ name: "name", type: "string" }],
      ),
      { name: "Ada" },
    );
    expect(parent.status, JSON.stringify(parent.error)).toBe("succeeded");
    expect(parent.outputs?.said).toBe("hello Ada from Asia/Jakarta");
    const childRun = await builder.request(`/api/runs/${String(parent.outputs?.child_run)}`, {
      cookie: alice,
    });
    expect(childRun.status).toBe(200);
    expect(await childRun.json()).toMatchObject({
      workflow_id: child,
      trigger: "tool",
      status: "succeeded",
      outputs: { greeting: "hello Ada", tz: "Asia/Jakarta" },
    });
  });

  it("fails as not found when the workflow belongs to another workspace, and runs nothing of it", async () => {
    const bobs = await createWorkflow(
      builder,
      bob,
      singleNodeGraph(node("clock", "tool", { tool: "current_time", args: {} }), { iso: "{{clock.iso}}" }),
    );
    // Named in the graph, it is refused when saved; coming from an input, when the node runs.
    const named = await builder.request("/api/workflows", {
      method: "POST",
      cookie: alice,
      json: {
        name: "foreign",
        graph: singleNodeGraph(
          node("sub", "tool", { tool: "run_workflow", args: { workflow_id: bobs } }),
          {},
        ),
      },
    });
    expect(named.status).toBe(422);
    const result = await run(
      alice,
      singleNodeGraph(
        node("sub", "tool", { tool: "run_workflow", args: { workflow_id: "{{start.id}}" } }),
        { out: "{{sub.result}}" },
        [{ name: "id", type: "string" }],
      ),
      { id: bobs },
    );
    expect(result.status).toBe("failed");
    expect(result.error).toMatchObject({ code: "workflow_not_found", node_id: "sub" });
    const history = (await (
      await builder.request(`/api/workflows/${bobs}/runs`, { cookie: bob })
    ).json()) as {
      data: unknown[];
    };
    expect(history.data).toEqual([]);
  });
});

describe("LLM node with knowledge-base context", () => {
  const fact = "The Lighthouse office at Jalan Merdeka opens its loading dock at 06:45 on weekdays.";

  const askGraph = (knowledgeBaseId: string) =>
    singleNodeGraph(
      node("ask", "llm", {
        provider: "openai-compatible",
        model: "fake-model",
        system: "Be brief.",
        prompt: "When does the loading dock at the Lighthouse office open? {{start.q}}",
        knowledge_base_ids: [knowledgeBaseId],
      }),
      { answer: "{{ask.text}}", sources: "{{ask.citations}}" },
      [{ name: "q", type: "string" }],
    );

  async function useFakeProvider(cookie: string): Promise<void> {
    const credential = await builder.request("/api/credentials", {
      method: "POST",
      cookie,
      json: { provider: "openai-compatible", api_key: "sk-http-tools-00001", base_url: provider.baseUrl },
    });
    expect(credential.status, await credential.clone().text()).toBe(201);
  }

  it("puts the retrieved chunk, numbered for citing, in what the model is sent, and outputs its citation", async () => {
    await useFakeProvider(alice);
    const base = await createBase(builder, alice, { name: "Facilities" });
    const document = await uploadOk(builder, alice, {
      knowledgeBaseId: base,
      name: "facilities.txt",
      bytes: fact,
      type: "text/plain",
    });
    expect(await waitForDocument(builder, alice, document.id)).toMatchObject({ status: "ready" });

    const result = await run(alice, askGraph(base), { q: "Thanks." });
    expect(result.status, JSON.stringify(result.error)).toBe("succeeded");
    expect(result.outputs?.answer).toContain("Answered: When does the loading dock");
    const sent = provider.turns.at(-1);
    const system = sent?.messages.find((message) => message.role === "system")?.text ?? "";
    expect(system).toContain("Be brief.");
    expect(system).toContain(`[1] (facilities.txt) ${fact}`);
    expect(sent?.messages.find((message) => message.role === "user")?.text).not.toContain(fact);
    expect(result.outputs?.sources).toEqual([
      {
        document_id: document.id,
        document_name: "facilities.txt",
        knowledge_base_id: base,
        chunk_id: expect.stringMatching(/^chk_/),
        position: 0,
        text: fact,
        score: expect.any(Number),
      },
    ]);

    // Another workspace cannot even save a graph naming the base.
    await useFakeProvider(bob);
    const foreign = await builder.request("/api/workflows", {
      method: "POST",
      cookie: bob,
      json: { name: "foreign", graph: askGraph(base) },
    });
    expect(foreign.status).toBe(422);
    expect(await foreign.json()).toMatchObject({
      error: { param: "graph.nodes[1].data.knowledge_base_ids[0]" },
    });
  });
});
