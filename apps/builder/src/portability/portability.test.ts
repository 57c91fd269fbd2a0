import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Ajv2020 } from "ajv/dist/2020.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXPORT_SCHEMA_FILE } from "../../../../scripts/export-schema.ts";
import { startTestBuilder, type TestBuilder } from "../../test/harness.ts";
import { createBase } from "../../test/knowledge-support.ts";
import { edge, node, type RunJson } from "../../test/workflow-support.ts";

let builder: TestBuilder;
let alice: string;
let bob: string;
/** A new user with an empty workspace. */
const fresh = async () => (await builder.signUp()).cookie;
let echo: Server;
let echoUrl: string;

beforeAll(async () => {
  builder = await startTestBuilder({ env: { ALLOW_PRIVATE_URLS: "1" } });
  alice = await fresh();
  bob = await fresh();
  echo = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => {
      body += chunk;
    });
    req.on("end", () => {
      res.setHeader("content-type", "application/json");
      res.end(
        JSON.stringify({ body: body ? JSON.parse(body) : null, auth: req.headers.authorization ?? null }),
      );
    });
  });
  await new Promise<void>((resolve) => echo.listen(0, "127.0.0.1", resolve));
  echoUrl = `http://127.0.0.1:${(echo.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => echo?.close(resolve));
  await builder?.stop();
});

async function json<T = Record<string, unknown>>(response: Response, status: number): Promise<T> {
  const text = await response.text();
  expect(response.status, text).toBe(status);
  return JSON.parse(text) as T;
}

const post = (cookie: string, path: string, body: unknown) =>
  builder.request(path, { method: "POST", cookie, json: body });

async function created(cookie: string, path: string, body: unknown): Promise<string> {
  return (await json<{ id: string }>(await post(cookie, path, body), 201)).id;
}

/** A workspace with a credential, a knowledge base, a helper workflow and an MCP server, all named alike. */
async function furnish(cookie: string, secret: string) {
  const credentialId = await created(cookie, "/api/credentials", {
    provider: "http",
    api_key: secret,
    name: "Echo key",
  });
  const baseId = await createBase(builder, cookie, { name: "Handbook" });
  const helperId = await created(cookie, "/api/workflows", {
    name: "Shout",
    graph: {
      nodes: [
        node("start", "start", { inputs: [{ name: "word", type: "string" }] }),
        node("done", "end", { outputs: [{ name: "loud", value: "{{start.word}}!" }] }),
      ],
      edges: [edge("start", "done")],
    },
  });
  const serverId = await created(cookie, "/api/mcp-servers", {
    name: "Tickets",
    url: "http://127.0.0.1:9/mcp",
  });
  return { credentialId, baseId, helperId, serverId };
}

function portableGraph(ids: Awaited<ReturnType<typeof furnish>>) {
  return {
    nodes: [
      node("start", "start", { inputs: [{ name: "q", type: "string", required: true }] }),
      {
        ...node("call", "http", {
          method: "POST",
          url: `${echoUrl}/echo`,
          body: { q: "{{start.q}}" },
          auth: { type: "bearer", credential_id: ids.credentialId },
          headers: { "x-trace": "on" },
        }),
      },
      node("shout", "tool", {
        tool: "run_workflow",
        args: { workflow_id: ids.helperId, inputs: { word: "{{start.q}}" } },
      }),
      node("search", "tool", {
        tool: "knowledge_search",
        args: { knowledge_base_ids: [ids.baseId], query: "x" },
      }),
      node("ask", "llm", {
        provider: "openai",
        model: "gpt-4o-mini",
        prompt: "{{start.q}}",
        knowledge_base_ids: [ids.baseId],
      }),
      node("ticket", "tool", {
        tool: "mcp_tool",
        args: { server_id: ids.serverId, tool: "open", arguments: {} },
      }),
      node("done", "end", {
        outputs: [
          { name: "auth", value: "{{call.json.auth}}" },
          { name: "echoed", value: "{{call.json.body.q}}" },
          { name: "loud", value: "{{shout.result.loud}}" },
        ],
      }),
    ],
    edges: [
      edge("start", "call"),
      edge("call", "shout"),
      edge("shout", "done"),
      edge("start", "search"),
      edge("search", "ask"),
      edge("ask", "ticket"),
      edge("ticket", "done"),
    ],
  };
}

/** A graph whose ids are put back to the ones of `from` (to compare definitions across workspaces). */
function withIds(graph: unknown, from: Record<string, string>, to: Record<string, string>): unknown {
  let text = JSON.stringify(graph);
  for (const key of Object.keys(from)) text = text.replaceAll(from[key] as string, to[key] as string);
  return JSON.parse(text);
}

const schema = () => JSON.parse(readFileSync(EXPORT_SCHEMA_FILE, "utf8")) as Record<string, unknown>;

function validator() {
  const ajv = new Ajv2020({ allErrors: false, strict: false });
  return ajv.compile(schema());
}

describe("export and import", () => {
  it("moves a workflow to another workspace: references by kind and name, remapped there; the same definition, and it runs the same", async () => {
    alice = await fresh();
    bob = await fresh();
    const mine = await furnish(alice, "alice-secret");
    const theirs = await furnish(bob, "alice-secret");
    const workflowId = await created(alice, "/api/workflows", {
      name: "Portable",
      graph: portableGraph(mine),
    });

    const exported = await builder.request(`/api/workflows/${workflowId}/export`, { cookie: alice });
    expect(exported.headers.get("content-disposition")).toBe('attachment; filename="portable.workflow.json"');
    const document = await json<{
      format: string;
      version: number;
      $schema: string;
      graph: unknown;
      references: { kind: string; id: string; name: string }[];
    }>(exported, 200);
    expect(document).toMatchObject({ format: "builder.workflow", version: 2, name: "Portable" });
    expect(document.$schema).toBe(`${builder.url}/api/schemas/export.json`);
    expect(document.references).toEqual([
      { kind: "credential", id: mine.credentialId, name: "Echo key", provider: "http" },
      { kind: "workflow", id: mine.helperId, name: "Shout" },
      { kind: "knowledge_base", id: mine.baseId, name: "Handbook" },
      { kind: "mcp_server", id: mine.serverId, name: "Tickets" },
    ]);
    expect(JSON.stringify(document)).not.toContain("alice-secret");
    expect(validator()(document)).toBe(true);

    const imported = await json<{
      id: string;
      graph: unknown;
      import_report: {
        references: {
          resolved: { kind: string; resolved_by: string; resolved_id: string; paths: string[] }[];
          unresolved: unknown[];
        };
      };
    }>(await post(bob, "/api/workflows/import", document), 201);
    expect(imported.import_report.references.unresolved).toEqual([]);
    expect(imported.import_report.references.resolved.map((ref) => [ref.kind, ref.resolved_by])).toEqual([
      ["credential", "name"],
      ["workflow", "name"],
      ["knowledge_base", "name"],
      ["mcp_server", "name"],
    ]);
    const knowledge = imported.import_report.references.resolved.find((ref) => ref.kind === "knowledge_base");
    expect(knowledge?.paths).toEqual([
      "graph.nodes[3].data.args.knowledge_base_ids[0]",
      "graph.nodes[4].data.knowledge_base_ids[0]",
    ]);
    expect(withIds(imported.graph, theirs, mine)).toEqual(portableGraph(mine));
    expect(JSON.stringify(imported.graph)).not.toContain(mine.baseId);

    // Both run the same (the model and MCP branch fails alike in both, so run only the HTTP branch).
    const runnable = (graph: unknown) => {
      const { nodes, edges } = graph as { nodes: { id: string }[]; edges: { source: string }[] };
      const kept = new Set(["start", "call", "shout", "done"]);
      return {
        nodes: nodes.filter((n) => kept.has(n.id)),
        edges: (edges as { source: string; target: string }[]).filter(
          (e) => kept.has(e.source) && kept.has(e.target),
        ),
      };
    };
    const run = async (cookie: string, graph: unknown) => {
      const id = await created(cookie, "/api/workflows", { name: "Run", graph: runnable(graph) });
      return (
        await json<RunJson>(await post(cookie, `/api/workflows/${id}/runs`, { inputs: { q: "hi" } }), 200)
      ).outputs;
    };
    const theirRun = await run(bob, imported.graph);
    expect(theirRun).toEqual({ auth: "Bearer alice-secret", echoed: "hi", loud: "hi!" });
    expect(await run(alice, portableGraph(mine))).toEqual(theirRun);

    // Exported again from there, it is the same document, ids aside.
    const again = await json(
      await builder.request(`/api/workflows/${imported.id}/export`, { cookie: bob }),
      200,
    );
    expect(withIds(again, theirs, mine)).toEqual(document);
  });

  it("leaves out secrets: an inline token becomes a credential to choose, secret-looking header and query values are emptied", async () => {
    const workflowId = await created(alice, "/api/workflows", {
      name: "Leaky",
      graph: {
        nodes: [
          node("start", "start", { inputs: [{ name: "t", type: "string" }] }),
          node("call", "http", {
            title: "Billing API",
            method: "GET",
            url: "http://127.0.0.1:9/x",
            auth: { type: "bearer", token: "sk-live-123" },
            headers: {
              Authorization: "Basic abc",
              "X-Api-Key": "k-456",
              Accept: "application/json",
              "X-Token": "{{start.t}}",
            },
            query: { api_key: "q-789", page: "1" },
          }),
          node("done", "end", { outputs: [] }),
        ],
        edges: [edge("start", "call"), edge("call", "done")],
      },
    });
    const document = await json<{
      graph: { nodes: { data: Record<string, unknown> }[] };
      references: unknown[];
      redacted: { path: string }[];
    }>(await builder.request(`/api/workflows/${workflowId}/export`, { cookie: alice }), 200);
    const text = JSON.stringify(document);
    for (const secret of ["sk-live-123", "Basic abc", "k-456", "q-789"]) expect(text).not.toContain(secret);
    expect(document.graph.nodes[1]?.data).toMatchObject({
      auth: { type: "bearer", credential_id: "inline_secret_1" },
      headers: { Authorization: "", "X-Api-Key": "", Accept: "application/json" },
      query: { api_key: "", page: "1" },
    });
    expect(document.references).toEqual([
      {
        kind: "credential",
        id: "inline_secret_1",
        name: "Billing API (call): bearer token",
        provider: "http",
        inline_secret: true,
      },
    ]);
    expect(document.redacted.map((field) => field.path).sort()).toEqual([
      "graph.nodes[1].data.headers.Authorization",
      "graph.nodes[1].data.headers.X-Api-Key",
      "graph.nodes[1].data.query.api_key",
    ]);
    expect(validator()(document)).toBe(true);

    // The import asks for the secret: unresolved unless mapped to a stored credential.
    const report = await json<{
      import_report: {
        references: { unresolved: { inline_secret?: boolean; action: string }[] };
        redacted: unknown[];
      };
    }>(await post(alice, "/api/workflows/import/preview", document), 200);
    expect(report.import_report.references.unresolved).toMatchObject([
      { inline_secret: true, action: "kept" },
    ]);
    expect(report.import_report.redacted).toHaveLength(3);
    const credentialId = await created(alice, "/api/credentials", {
      provider: "http",
      api_key: "sk-live-123",
      name: "Billing",
    });
    const mapped = await json<{
      graph: { nodes: { data: { auth?: unknown } }[] };
      import_report: { references: { resolved: { resolved_by: string }[] } };
    }>(
      await post(alice, "/api/workflows/import", { document, references: { inline_secret_1: credentialId } }),
      201,
    );
    expect(mapped.graph.nodes[1]?.data.auth).toEqual({ type: "bearer", credential_id: credentialId });
    expect(mapped.import_report.references.resolved[0]?.resolved_by).toBe("mapping");
  });

  it("imports what it cannot resolve anyway, and says what it did: removed from lists, cleared, or a credential kept to choose", async () => {
    alice = await fresh();
    const mine = await furnish(alice, "s");
    const workflowId = await created(alice, "/api/workflows", { name: "Lonely", graph: portableGraph(mine) });
    const document = await json(
      await builder.request(`/api/workflows/${workflowId}/export`, { cookie: alice }),
      200,
    );
    const stranger = await fresh();
    const before = (
      await json<{ data: unknown[] }>(await builder.request("/api/workflows", { cookie: stranger }), 200)
    ).data;
    const preview = await json<{ name: string }>(
      await post(stranger, "/api/workflows/import/preview", document),
      200,
    );
    expect(preview.name).toBe("Lonely");
    expect(
      (await json<{ data: unknown[] }>(await builder.request("/api/workflows", { cookie: stranger }), 200))
        .data,
    ).toEqual(before);

    const imported = await json<{
      graph: { nodes: { id: string; data: Record<string, unknown> }[] };
      import_report: {
        references: {
          resolved: unknown[];
          unresolved: { kind: string; action: string; reason: string; paths: string[] }[];
        };
      };
    }>(await post(stranger, "/api/workflows/import", document), 201);
    expect(imported.import_report.references.resolved).toEqual([]);
    expect(
      imported.import_report.references.unresolved.map((ref) => [ref.kind, ref.action, ref.reason]),
    ).toEqual([
      ["credential", "kept", 'no credential named "Echo key" in this workspace'],
      ["workflow", "cleared", 'no workflow named "Shout" in this workspace'],
      ["knowledge_base", "removed", 'no knowledge base named "Handbook" in this workspace'],
      ["mcp_server", "cleared", 'no MCP server named "Tickets" in this workspace'],
    ]);
    const byId = Object.fromEntries(imported.graph.nodes.map((n) => [n.id, n.data]));
    expect(byId.call?.auth).toEqual({ type: "bearer", credential_id: mine.credentialId });
    expect(byId.shout?.args).toEqual({ inputs: { word: "{{start.q}}" } });
    expect(byId.ask?.knowledge_base_ids).toEqual([]);
    expect(byId.ticket?.args).toEqual({ tool: "open", arguments: {} });

    // A mapping to something the workspace does not have is refused, naming it.
    const wrong = await json<{ error: { code: string; param: string } }>(
      await post(stranger, "/api/workflows/import", { document, references: { [mine.baseId]: mine.baseId } }),
      422,
    );
    expect(wrong.error).toMatchObject({ code: "reference_not_found", param: `references.${mine.baseId}` });
  });

  it("refuses malformed and newer documents with 422 naming the first problem's path", async () => {
    const graph = {
      nodes: [node("start", "start", { inputs: [] }), node("done", "end", { outputs: [] })],
      edges: [edge("start", "done")],
    };
    const good = { format: "builder.workflow", version: 2, name: "Fine", graph };
    const cases: [unknown, string, string][] = [
      [{ ...good, version: 3 }, "unsupported_format_version", "version"],
      [{ ...good, format: "other.thing" }, "unsupported_format", "format"],
      [{ hello: "world" }, "unsupported_format", "format"],
      [
        { ...good, graph: { ...graph, nodes: [graph.nodes[0], { ...graph.nodes[1], type: "teleport" }] } },
        "validation_failed",
        "graph.nodes[1].type",
      ],
      [{ ...good, name: "" }, "validation_failed", "name"],
      [{ ...good, extra: 1 }, "validation_failed", "extra"],
      [
        { ...good, references: [{ kind: "planet", id: "x", name: "y" }] },
        "validation_failed",
        "references[0].kind",
      ],
      [{ document: { ...good, version: 9 } }, "unsupported_format_version", "document.version"],
      [
        { document: { ...good, graph: { nodes: [], edges: [] } } },
        "validation_failed",
        "document.graph.nodes",
      ],
      [{ document: good, references: { a: 5 } }, "validation_failed", "references.a"],
      [{ format: "builder.agent", version: 1 }, "wrong_document_kind", "format"],
    ];
    for (const [body, code, param] of cases) {
      const answer = await json<{ error: { code: string; param: string; message: string } }>(
        await post(alice, "/api/workflows/import", body),
        422,
      );
      expect(answer.error, JSON.stringify(body)).toMatchObject({ code, param });
    }
    // The JSON Schema agrees on each malformed document (the one it cannot know: a version beyond it).
    const validate = validator();
    for (const [body] of cases.slice(0, 7)) expect(validate(body), JSON.stringify(body)).toBe(false);
    expect(validate(good)).toBe(true);

    const agentAnswer = await json<{ error: { code: string; param: string } }>(
      await post(alice, "/api/agents/import", { ...good, format: "builder.agent", version: 2 }),
      422,
    );
    expect(agentAnswer.error).toMatchObject({ code: "unsupported_format_version", param: "version" });
    const workflowToAgents = await json<{ error: { code: string } }>(
      await post(alice, "/api/agents/import", good),
      422,
    );
    expect(workflowToAgents.error.code).toBe("wrong_document_kind");
  });

  it("still imports version 1 documents, and exports a published version on request", async () => {
    const graph = {
      nodes: [
        node("start", "start", { inputs: [] }),
        node("done", "end", { outputs: [{ name: "v", value: "one" }] }),
      ],
      edges: [edge("start", "done")],
    };
    const old = await json<{ id: string; import_report: { source: unknown } }>(
      await post(alice, "/api/workflows/import", {
        format: "builder.workflow",
        version: 1,
        name: "Old",
        graph,
      }),
      201,
    );
    expect(old.import_report.source).toEqual({ format: "builder.workflow", version: 1 });
    await json(await post(alice, `/api/workflows/${old.id}/versions`, {}), 201);
    const changed = {
      ...graph,
      nodes: [graph.nodes[0], node("done", "end", { outputs: [{ name: "v", value: "two" }] })],
    };
    await json(
      await builder.request(`/api/workflows/${old.id}`, {
        method: "PATCH",
        cookie: alice,
        json: { graph: changed },
      }),
      200,
    );
    const draft = await json<{ graph: unknown }>(
      await builder.request(`/api/workflows/${old.id}/export`, { cookie: alice }),
      200,
    );
    const published = await json<{ graph: unknown }>(
      await builder.request(`/api/workflows/${old.id}/export?version=published`, { cookie: alice }),
      200,
    );
    expect(JSON.stringify(draft.graph)).toContain("two");
    expect(JSON.stringify(published.graph)).toContain("one");
    expect(
      (await builder.request(`/api/workflows/${old.id}/export?version=4`, { cookie: alice })).status,
    ).toBe(404);
    expect((await builder.request(`/api/workflows/${old.id}/export`, { cookie: bob })).status).toBe(404);
  });

  it("moves an agent: knowledge bases, workflow tools and MCP servers by name; secrets of HTTP tools left out", async () => {
    alice = await fresh();
    bob = await fresh();
    const mine = await furnish(alice, "x");
    const agent = {
      name: "Helper",
      provider: "openai",
      model: "gpt-4o-mini",
      instructions: "Be kind.\nBe brief.",
      temperature: 0.3,
      knowledge_base_ids: [mine.baseId],
      tools: [
        { type: "knowledge_search" },
        { type: "workflow", name: "shout", description: "Shouts", workflow_id: mine.helperId },
        { type: "mcp", server_id: mine.serverId, prefix: "tix" },
        {
          type: "http",
          name: "weather",
          method: "GET",
          url: "https://api.example.com/weather",
          headers: { Authorization: "Bearer w-123", Accept: "json" },
        },
      ],
    };
    const agentId = await created(alice, "/api/agents", agent);
    const document = await json<{ references: unknown[]; redacted: { path: string }[]; tools: unknown[] }>(
      await builder.request(`/api/agents/${agentId}/export`, { cookie: alice }),
      200,
    );
    expect(document).toMatchObject({
      format: "builder.agent",
      version: 1,
      name: "Helper",
      instructions: "Be kind.\nBe brief.",
    });
    expect(JSON.stringify(document)).not.toContain("w-123");
    expect(document.redacted.map((field) => field.path)).toEqual(["tools[3].headers.Authorization"]);
    expect(document.references).toEqual([
      { kind: "knowledge_base", id: mine.baseId, name: "Handbook" },
      { kind: "workflow", id: mine.helperId, name: "Shout" },
      { kind: "mcp_server", id: mine.serverId, name: "Tickets" },
    ]);
    expect(validator()(document)).toBe(true);

    const theirs = await furnish(bob, "y");
    const imported = await json<{
      id: string;
      knowledge_base_ids: string[];
      tools: unknown[];
      mcp_exposed: boolean;
      import_report: { references: { unresolved: unknown[] } };
    }>(await post(bob, "/api/agents/import", document), 201);
    expect(imported.import_report.references.unresolved).toEqual([]);
    expect(imported.knowledge_base_ids).toEqual([theirs.baseId]);
    expect(withIds(imported.tools, theirs, mine)).toEqual(document.tools);
    expect(imported.mcp_exposed).toBe(false);

    // Without counterparts: the knowledge base and the tools that need them are left out, and listed.
    const stranger = await fresh();
    const alone = await json<{
      knowledge_base_ids: string[];
      tools: { type: string }[];
      import_report: { references: { unresolved: { kind: string; action: string }[] } };
    }>(await post(stranger, "/api/agents/import", { document, name: "Helper copy" }), 201);
    expect(alone.knowledge_base_ids).toEqual([]);
    expect(alone.tools.map((tool) => tool.type)).toEqual(["knowledge_search", "http"]);
    expect(alone.import_report.references.unresolved.map((ref) => [ref.kind, ref.action])).toEqual([
      ["knowledge_base", "removed"],
      ["workflow", "removed"],
      ["mcp_server", "removed"],
    ]);
    expect((await builder.request(`/api/agents/${agentId}/export`, { cookie: bob })).status).toBe(404);
  });

  it("serves the export format's JSON Schema without sign-in: the one kept in docs/, generated from the import's own definitions", async () => {
    const response = await builder.request("/api/schemas/export.json");
    expect(response.status).toBe(200);
    const served = (await response.json()) as Record<string, unknown>;
    expect(served).toEqual(schema());
    expect(served.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
    expect(Object.keys(served.$defs as object)).toEqual(
      expect.arrayContaining([
        "WorkflowDocument",
        "WorkflowDocumentV1",
        "AgentDocument",
        "WorkflowGraph",
        "Reference",
      ]),
    );
  });
});
