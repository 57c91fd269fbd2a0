import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestBuilder, type TestBuilder } from "../test/harness.ts";

let builder: TestBuilder;
let cookie: string;
beforeAll(async () => {
  builder = await startTestBuilder();
  ({ cookie } = await builder.signUp());
});
afterAll(() => builder?.stop());

describe("one error shape with a Request-Id everywhere", () => {
  it("answers malformed JSON with 400 invalid_json", async () => {
    const response = await builder.request("/api/agents", {
      method: "POST",
      cookie,
      headers: { "content-type": "application/json" },
      body: '{"name": "half',
    });
    expect(response.status).toBe(400);
    expect(response.headers.get("request-id")).toBeTruthy();
    expect(await response.json()).toEqual({
      error: { type: "invalid_request_error", code: "invalid_json", message: expect.any(String) },
    });
  });

  it("answers a missing field with 422 naming it", async () => {
    const response = await builder.request("/api/agents", {
      method: "POST",
      cookie,
      // The provider may be left out (the workspace's own is used); the name may not.
      json: { model: "gpt-4o-mini", instructions: "Be brief." },
    });
    expect(response.status).toBe(422);
    const body = (await response.json()) as {
      error: { param: string; details: { path: string; message: string }[] };
    };
    expect(body.error.param).toBe("name");
    expect(body.error.details).toContainEqual({ path: "name", message: "is required" });
  });

  it("answers an unknown field with 422 naming it, at the top level and deep in a graph or a tool, instead of dropping it", async () => {
    type ErrorJson = { error: { param: string; details: { path: string; message: string }[] } };
    const start = { id: "start", type: "start", position: { x: 0, y: 0 }, data: { inputs: [] } };
    const end = { id: "done", type: "end", position: { x: 0, y: 0 }, data: { outputs: [] } };
    const code = {
      id: "code",
      type: "code",
      position: { x: 0, y: 0 },
      // timeout_ms is the node's, not its data's: dropped, the node would run with the default.
      data: { language: "python", code: "def main(inputs):\n    return {}\n", timeout_ms: 5000 },
    };
    const graph = {
      nodes: [start, code, end],
      edges: [
        { id: "a", source: "start", target: "code" },
        { id: "b", source: "code", target: "done" },
      ],
    };
    const cases: [string, string, Record<string, unknown>, string][] = [
      ["POST", "/api/workflows", { name: "w", graph }, "graph.nodes[1].data.timeout_ms"],
      [
        "POST",
        "/api/workflows",
        { name: "w", graph: { ...graph, nodes: [start, { ...end, colour: "red" }] }, edges: [] },
        "graph.nodes[1].colour",
      ],
      ["POST", "/api/agents", { name: "a", provider: "openai", model: "m", temprature: 0.2 }, "temprature"],
      [
        "POST",
        "/api/agents",
        {
          name: "a",
          provider: "openai",
          model: "m",
          tools: [{ type: "knowledge_search", top_k: 3, knowledge_base_ids: ["kb_x"] }],
        },
        "tools[0].knowledge_base_ids",
      ],
      ["POST", "/api/sandbox/run", { language: "python", code: "x", input: {}, timeout: 5 }, "timeout"],
    ];
    for (const [method, path, json, param] of cases) {
      const response = await builder.request(path, { method, cookie, json });
      expect(response.status, `${path} ${param}`).toBe(422);
      const body = (await response.json()) as ErrorJson;
      expect(body.error.param, path).toBe(param);
      expect(body.error.details, path).toContainEqual({ path: param, message: "is not a known field" });
      if (param === "graph.nodes[1].colour")
        expect(body.error.details).toContainEqual({ path: "edges", message: "is not a known field" });
    }
  });

  it("compresses a JSON answer above 1 KiB for a client that accepts brotli or gzip", async () => {
    for (const encoding of ["br", "gzip"]) {
      const response = await builder.request("/api/openapi.json", {
        headers: { "accept-encoding": encoding },
      });
      expect(response.status).toBe(200);
      expect(response.headers.get("content-encoding"), encoding).toBe(encoding);
      expect(((await response.json()) as { openapi: string }).openapi).toMatch(/^3\.1/);
    }
    const plain = await builder.request("/api/openapi.json", { headers: { "accept-encoding": "identity" } });
    expect(plain.headers.get("content-encoding")).toBeNull();
  });

  it("answers an unknown route with 404 route_not_found", async () => {
    const response = await builder.request("/api/no-such-thing", { cookie });
    expect(response.status).toBe(404);
    expect(response.headers.get("request-id")).toBeTruthy();
    expect(await response.json()).toMatchObject({ error: { code: "route_not_found", type: "not_found" } });
  });

  it("answers every protected route with 401 without a session or key", async () => {
    for (const path of ["/api/agents", "/api/keys", "/api/providers", "/api/agents/agt_x"]) {
      const response = await fetch(`${builder.url}${path}`);
      expect(response.status, path).toBe(401);
      expect(await response.json()).toMatchObject({ error: { code: "unauthenticated" } });
    }
  });

  it("keeps a caller's well-formed Request-Id and replaces a malformed one", async () => {
    const kept = await builder.request("/api/agents", {
      cookie,
      headers: { "request-id": "trace-0123456789" },
    });
    expect(kept.headers.get("request-id")).toBe("trace-0123456789");
    const replaced = await builder.request("/api/agents", {
      cookie,
      headers: { "request-id": "bad id with spaces" },
    });
    expect(replaced.headers.get("request-id")).toMatch(/^req_/);
  });

  it("refuses bodies over the JSON limit with 413", async () => {
    const response = await builder.request("/api/agents", {
      method: "POST",
      cookie,
      json: { name: "big", provider: "openai", model: "gpt-4o", instructions: "x".repeat(1_100_000) },
    });
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ error: { code: "body_too_large" } });
  });

  it("counts a chunked body (no Content-Length) while it streams: over the limit is 413, under it is read", async () => {
    const chunked = (text: string) =>
      builder.request("/api/agents", {
        method: "POST",
        cookie,
        headers: { "content-type": "application/json" },
        body: new Blob([text]).stream(),
        duplex: "half",
      } as RequestInit);
    const big = JSON.stringify({
      name: "big",
      provider: "openai",
      model: "gpt-4o",
      instructions: "x".repeat(1_100_000),
    });
    const refused = await chunked(big);
    expect(refused.status).toBe(413);
    expect(await refused.json()).toMatchObject({ error: { code: "body_too_large" } });
    const accepted = await chunked(JSON.stringify({ name: "streamed", provider: "openai", model: "gpt-4o" }));
    expect(accepted.status, await accepted.clone().text()).toBe(201);
  });

  it("serves health and readiness", async () => {
    expect(await (await fetch(`${builder.url}/healthz`)).json()).toEqual({ status: "ok" });
    expect(await (await fetch(`${builder.url}/readyz`)).json()).toEqual({ status: "ok" });
  });
});

describe("OpenAPI", () => {
  it("documents every route of the app in OpenAPI 3.1", async () => {
    const response = await fetch(`${builder.url}/api/openapi.json`);
    expect(response.status).toBe(200);
    const document = (await response.json()) as {
      openapi: string;
      paths: Record<string, Record<string, unknown>>;
    };
    expect(document.openapi).toBe("3.1.0");
    const operations = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(operations).toEqual(
      expect.arrayContaining([
        "POST /api/auth/sign-up/email",
        "POST /api/auth/sign-in/email",
        "POST /api/auth/sign-out",
        "GET /api/auth/get-session",
        "GET /api/agents",
        "POST /api/agents",
        "GET /api/agents/{id}",
        "PATCH /api/agents/{id}",
        "DELETE /api/agents/{id}",
        "GET /api/providers",
        "POST /api/keys",
        "GET /api/keys",
        "DELETE /api/keys/{id}",
        "GET /healthz",
        "GET /readyz",
      ]),
    );
  });

  it("serves the browsable docs page with its assets", async () => {
    const page = await fetch(`${builder.url}/api/docs`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("/api/openapi.json");
    const script = await fetch(`${builder.url}/api/docs/assets/swagger-ui-bundle.js`);
    expect(script.status).toBe(200);
    expect(script.headers.get("content-type")).toContain("javascript");
  });
});

describe("input PostgreSQL cannot store, bytes that are not UTF-8, and integers beyond a column", () => {
  type ErrorJson = { error: { code: string; param?: string } };
  const echoGraph = {
    nodes: [
      {
        id: "start",
        type: "start",
        position: { x: 0, y: 0 },
        data: { inputs: [{ name: "q", type: "string" }] },
      },
      {
        id: "done",
        type: "end",
        position: { x: 0, y: 0 },
        data: { outputs: [{ name: "q", value: "{{start.q}}" }] },
      },
    ],
    edges: [{ id: "e", source: "start", target: "done" }],
  };

  async function rawPost(path: string, body: string, withCookie = true) {
    return builder.request(path, {
      method: "POST",
      ...(withCookie ? { cookie } : {}),
      headers: { "content-type": "application/json" },
      body,
    });
  }

  it("a lone surrogate in run inputs or a trigger body → 422 naming the input; a NUL in a name → 422", async () => {
    const created = await builder.request("/api/workflows", {
      method: "POST",
      cookie,
      json: { name: "echo", graph: echoGraph },
    });
    const workflow = (await created.json()) as { id: string; trigger_url: string };
    const run = await rawPost(`/api/workflows/${workflow.id}/runs`, '{"inputs":{"q":"\\ud800"}}');
    expect(run.status).toBe(422);
    expect(((await run.json()) as ErrorJson).error).toMatchObject({
      code: "validation_failed",
      param: "inputs.q",
    });
    const hook = await rawPost(new URL(workflow.trigger_url).pathname, '{"q":"x\\udfff"}', false);
    expect(hook.status).toBe(422);
    expect(((await hook.json()) as ErrorJson).error).toMatchObject({ param: "q" });
    const agent = await rawPost("/api/agents", '{"name":"a\\u0000b","provider":"openai","model":"m"}');
    expect(agent.status).toBe(422);
    expect(((await agent.json()) as ErrorJson).error).toMatchObject({ param: "name" });
  });

  it("a number JSON cannot carry exactly (1e400, a 400-digit integer, 2^53+1) in run inputs or a sandbox run's input → 422 naming it and saying why", async () => {
    const created = await builder.request("/api/workflows", {
      method: "POST",
      cookie,
      json: {
        name: "numbers",
        graph: {
          ...echoGraph,
          nodes: echoGraph.nodes.map((node) =>
            node.type === "start" ? { ...node, data: { inputs: [{ name: "q", type: "number" }] } } : node,
          ),
        },
      },
    });
    expect(created.status, await created.clone().text()).toBe(201);
    const workflow = (await created.json()) as { id: string };
    const tooBig = `1${"0".repeat(399)}`;
    for (const [token, reason] of [
      ["1e400", /out of range/],
      ["-1e400", /out of range/],
      [tooBig, /out of range/],
      ["9007199254740993", /cannot carry exactly \(it would become 9007199254740992\)/],
    ] as const) {
      const run = await rawPost(`/api/workflows/${workflow.id}/runs`, `{"inputs":{"q":${token}}}`);
      expect(run.status, token).toBe(422);
      const error = ((await run.json()) as ErrorJson & { error: { message: string } }).error;
      expect(error, token).toMatchObject({ code: "validation_failed", param: "inputs.q" });
      expect(error.message, token).toMatch(reason);
      const sandboxBody = JSON.stringify({
        language: "python",
        code: "def main(inputs):\n    return inputs\n",
        input: { big: ["TOKEN"] },
      });
      const sandbox = await rawPost("/api/sandbox/run", sandboxBody.replace('"TOKEN"', token));
      expect(sandbox.status, token).toBe(422);
      expect(((await sandbox.json()) as ErrorJson).error, token).toMatchObject({ param: "input.big[0]" });
    }
    const fine = await rawPost(`/api/workflows/${workflow.id}/runs`, '{"inputs":{"q":9007199254740991}}');
    expect(fine.status).toBe(200);
  });

  it("a NUL in a path id → 422 naming it; a body that is not UTF-8 → 400", async () => {
    const path = await builder.request("/api/agents/agt_%00x", { cookie });
    expect(path.status).toBe(422);
    expect(((await path.json()) as ErrorJson).error).toMatchObject({ param: "id" });
    const bytes = Buffer.concat([Buffer.from('{"name":"caf'), Buffer.from([0xe9]), Buffer.from('"}')]);
    const body = await builder.request("/api/agents", {
      method: "POST",
      cookie,
      headers: { "content-type": "application/json" },
      body: bytes,
    });
    expect(body.status).toBe(400);
    expect(((await body.json()) as ErrorJson).error.code).toBe("invalid_json");
  });

  it("a chunk cursor beyond int4 → 422, not 500", async () => {
    const response = await builder.request(
      "/api/rag/documents/doc_00000000000000000000000000/chunks?cursor=2147483648",
      { cookie },
    );
    expect(response.status).toBe(422);
    expect(((await response.json()) as ErrorJson).error).toMatchObject({ param: "cursor" });
  });

  it.each([
    "/api/agents?cursor=zzz",
    "/api/workflows?cursor=%20",
    "/api/keys?cursor=agt_",
    "/api/credentials?cursor=1",
  ])("a garbage list cursor %s → 422 instead of an empty page", async (path) => {
    const response = await builder.request(path, { cookie });
    expect(response.status).toBe(422);
    expect(((await response.json()) as ErrorJson).error).toMatchObject({ param: "cursor" });
  });
});
