import { newId } from "@app/core";
import { type FakeProvider, startFakeOpenAI } from "@app/testing";
import type { WorkflowGraph } from "@app/workflow";
import { eq } from "drizzle-orm";
import Papa from "papaparse";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgentOnFake } from "../../test/agent-support.ts";
import { startTestBuilder, type TestBuilder } from "../../test/harness.ts";
import { createWorkflow, edge, node } from "../../test/workflow-support.ts";
import { conversations, messageFeedback, messages } from "../agents/schema.ts";
import { endUsers } from "../apps/schema.ts";
import { workflowRuns } from "../workflows/schema.ts";
import { workspaces } from "../workspaces/schema.ts";

let builder: TestBuilder;
let openai: FakeProvider;
const KEY = "sk-compat-good-key-0001";

beforeAll(async () => {
  openai = await startFakeOpenAI({ apiKey: KEY });
  openai.script = (turn) => ({
    text: `model: ${turn.messages.findLast((message) => message.role === "user")?.text ?? ""}`,
    usage: { input: 10, output: 5 },
  });
  builder = await startTestBuilder({ env: { ALLOW_PRIVATE_URLS: "1" } });
});
afterAll(async () => {
  await builder?.stop();
  await openai?.close();
});

async function json<T = Record<string, unknown>>(response: Response, status: number): Promise<T> {
  expect(response.status, await response.clone().text()).toBe(status);
  return (await response.json()) as T;
}

async function workspaceOf(userId: string): Promise<string> {
  const [row] = await builder.deps.db.select().from(workspaces).where(eq(workspaces.ownerUserId, userId));
  if (!row) throw new Error("no workspace");
  return row.id;
}

type Page<T = { id: string }> = { data: T[]; has_more: boolean; next_cursor: string | null };

const at = (day: number) => new Date(Date.UTC(2026, 2, day, 12));

/**
 * A fixed data set written straight to the tables: four conversations and four runs whose every
 * field differs, so each filter has exactly one answer to find.
 */
async function seedLogs() {
  const user = await builder.signUp();
  const cookie = user.cookie;
  const agentA = await createAgentOnFake(builder, cookie, openai, KEY);
  const workspaceId = await workspaceOf(user.userId);
  const agentB = await createAgentOnFake(builder, cookie, openai, KEY, { name: "Other" });
  const agentApp = await json<{ id: string }>(
    await builder.request("/api/apps", { method: "POST", cookie, json: { agent_id: agentA } }),
    201,
  );
  const graph = {
    nodes: [node("start", "start", { inputs: [] }), node("done", "end", { outputs: [] })],
    edges: [edge("start", "done")],
  };
  const workflow1 = await createWorkflow(builder, cookie, graph);
  const workflow2 = await createWorkflow(builder, cookie, graph);
  const workflowApp = await json<{ id: string }>(
    await builder.request("/api/apps", { method: "POST", cookie, json: { workflow_id: workflow1 } }),
    201,
  );
  const db = builder.deps.db;
  const ann = newId("eu");
  const bob = newId("eu");
  await db.insert(endUsers).values([
    {
      id: ann,
      appId: agentApp.id,
      workspaceId,
      kind: "customer",
      externalId: "ann",
      name: "Ann",
      createdAt: at(1),
      lastSeenAt: at(1),
    },
    {
      id: bob,
      appId: workflowApp.id,
      workspaceId,
      kind: "customer",
      externalId: "bob",
      name: null,
      createdAt: at(1),
      lastSeenAt: at(1),
    },
  ]);

  const conversation = (day: number, values: Partial<typeof conversations.$inferInsert>) => ({
    id: newId("conv", at(day).getTime()),
    workspaceId,
    agentId: agentA,
    title: `Day ${day}`,
    createdAt: at(day),
    updatedAt: at(day),
    ...values,
  });
  const c1 = conversation(1, { source: "studio" });
  const c2 = conversation(2, { source: "app", appId: agentApp.id, endUserId: ann, version: 1 });
  const c3 = conversation(3, { source: "api", agentId: agentB, version: 2 });
  const c4 = conversation(4, { source: "mcp" });
  await db.insert(conversations).values([c1, c2, c3, c4]);
  const message = (
    conversationId: string,
    day: number,
    minute: number,
    role: "user" | "assistant",
    content: string,
    values: Partial<typeof messages.$inferInsert> = {},
  ) => {
    const createdAt = new Date(at(day).getTime() + minute * 60_000);
    return {
      id: newId("msg", createdAt.getTime()),
      workspaceId,
      conversationId,
      role,
      content,
      createdAt,
      ...(role === "assistant" ? { source: "model" as const, latencyMs: 1200 } : {}),
      ...values,
    };
  };
  const m1q = message(c1.id, 1, 1, "user", "How do refunds work?");
  const m1a = message(c1.id, 1, 2, "assistant", 'Refunds take "5 days", sometimes\nmore.', {
    provider: "openai-compatible",
    model: "llama3.2",
    inputTokens: 100,
    outputTokens: 20,
    finishReason: "stop",
    toolCalls: [
      {
        id: "call_1",
        name: "knowledge_search",
        input: { query: "refunds" },
        output: {
          results: [
            {
              knowledge_base_id: "kb_1",
              document_id: "doc_1",
              document_name: "policy.md",
              chunk_id: "chk_1",
              position: 0,
              text: "Refunds within 30 days.",
            },
          ],
        },
        is_error: false,
        duration_ms: 40,
      },
    ],
  });
  const m2q = message(c2.id, 2, 1, "user", "Where is my order 50%_off?");
  const m2a = message(c2.id, 2, 2, "assistant", "東京の倉庫から発送しました。", {
    source: "annotation",
    annotationId: "ann_1",
    annotationSimilarity: 0.93,
    version: 1,
  });
  const m4q = message(c4.id, 4, 1, "user", '=HYPERLINK("http://evil")');
  const m4a = message(c4.id, 4, 2, "assistant", "I cannot open links.");
  await db.insert(messages).values([m1q, m1a, m2q, m2a, m4q, m4a]);
  const rating = (
    messageId: string,
    source: "user" | "team",
    value: "like" | "dislike",
    comment: string | null = null,
  ) => ({ messageId, source, workspaceId, rating: value, comment, createdAt: at(5), updatedAt: at(5) });
  await db
    .insert(messageFeedback)
    .values([
      rating(m1a.id, "user", "dislike", 'Too slow, and "vague"'),
      rating(m2a.id, "team", "like"),
      rating(m4a.id, "team", "dislike", "Should explain why"),
      rating(m4a.id, "user", "like"),
    ]);

  const run = (day: number, values: Partial<typeof workflowRuns.$inferInsert>) => ({
    id: newId("run", at(day).getTime()),
    workspaceId,
    workflowId: workflow1,
    status: "succeeded" as const,
    trigger: "api" as const,
    graph: graph as unknown as WorkflowGraph,
    inputs: {},
    startedAt: at(day),
    finishedAt: at(day),
    elapsedMs: 15,
    heartbeatAt: at(day),
    ...values,
  });
  const r1 = run(1, { inputs: { city: "Jakarta" }, outputs: { greeting: "Hello Jakarta" } });
  const r2 = run(2, {
    trigger: "app",
    appId: workflowApp.id,
    endUserId: bob,
    version: 1,
    status: "failed",
    inputs: { note: 'say "hi", please' },
    error: { code: "node_failed", message: "The HTTP node answered 500." },
  });
  const r3 = run(3, { workflowId: workflow2, trigger: "hook", version: 2, outputs: { text: "東京タワー" } });
  const r4 = run(4, { workflowId: workflow2, trigger: "schedule", status: "cancelled" });
  await db.insert(workflowRuns).values([r1, r2, r3, r4]);
  return {
    cookie,
    agentA,
    agentB,
    agentApp: agentApp.id,
    workflowApp: workflowApp.id,
    workflow1,
    workflow2,
    ann,
    bob,
    c: [c1.id, c2.id, c3.id, c4.id] as const,
    r: [r1.id, r2.id, r3.id, r4.id] as const,
    m: { m1q: m1q.id, m1a: m1a.id, m2a: m2a.id, m4a: m4a.id },
  };
}

let seeded: Awaited<ReturnType<typeof seedLogs>>;
beforeAll(async () => {
  seeded = await seedLogs();
}, 60_000);

async function conversationIds(query: string): Promise<string[]> {
  const page = await json<Page>(
    await builder.request(`/api/conversations?${query}`, { cookie: seeded.cookie }),
    200,
  );
  return page.data.map((row) => row.id);
}

async function runIds(query: string): Promise<string[]> {
  const page = await json<Page>(await builder.request(`/api/runs?${query}`, { cookie: seeded.cookie }), 200);
  return page.data.map((row) => row.id);
}

describe("conversation logs", () => {
  it("filter by agent, app, version, end user, source, status, rating, annotation, time and text", async () => {
    const [c1, c2, c3, c4] = seeded.c;
    expect(await conversationIds("")).toEqual([c4, c3, c2, c1]);
    expect(await conversationIds(`agent_id=${seeded.agentA}`)).toEqual([c4, c2, c1]);
    expect(await conversationIds(`agent_id=${seeded.agentB}`)).toEqual([c3]);
    expect(await conversationIds(`app_id=${seeded.agentApp}`)).toEqual([c2]);
    expect(await conversationIds("version=1")).toEqual([c2]);
    expect(await conversationIds("version=draft")).toEqual([c4, c1]);
    expect(await conversationIds("end_user=ann")).toEqual([c2]);
    expect(await conversationIds(`end_user=${seeded.ann}`)).toEqual([c2]);
    expect(await conversationIds("end_user=nobody")).toEqual([]);
    expect(await conversationIds("source=mcp")).toEqual([c4]);
    expect(await conversationIds("source=studio")).toEqual([c1]);
    expect(await conversationIds("status=unanswered")).toEqual([c3]);
    expect(await conversationIds("status=answered")).toEqual([c4, c2, c1]);
    expect(await conversationIds("feedback=dislike")).toEqual([c4, c1]);
    expect(await conversationIds("feedback=dislike&feedback_source=user")).toEqual([c1]);
    expect(await conversationIds("feedback=dislike&feedback_source=team")).toEqual([c4]);
    expect(await conversationIds("feedback=like")).toEqual([c4, c2]);
    expect(await conversationIds("feedback=any")).toEqual([c4, c2, c1]);
    expect(await conversationIds("annotated=true")).toEqual([c2]);
    expect(await conversationIds("annotated=false")).toEqual([c4, c3, c1]);
    expect(await conversationIds("from=2026-03-02T00:00:00Z&to=2026-03-04T12:00:00Z")).toEqual([c3, c2]);
    expect(await conversationIds("from=2026-03-03")).toEqual([c4, c3]);
    expect(await conversationIds("to=2026-03-02T19:00:00.001%2B07:00")).toEqual([c2, c1]);
    expect(await conversationIds("q=REFUNDS")).toEqual([c1]);
    expect(await conversationIds(`q=${encodeURIComponent("50%_off")}`)).toEqual([c2]);
    expect(await conversationIds(`q=${encodeURIComponent("%")}`)).toEqual([c2]);
    expect(await conversationIds(`q=${encodeURIComponent("倉庫")}`)).toEqual([c2]);
    expect(await conversationIds(`agent_id=${seeded.agentA}&feedback=like&source=app`)).toEqual([c2]);
  });

  it("page through a filter with the cursor, and refuse values that are not what the filter takes", async () => {
    const [c1, c2, , c4] = seeded.c;
    const first = await json<Page>(
      await builder.request("/api/conversations?feedback=any&limit=2", { cookie: seeded.cookie }),
      200,
    );
    expect(first.data.map((row) => row.id)).toEqual([c4, c2]);
    expect(first.has_more).toBe(true);
    expect(await conversationIds(`feedback=any&limit=2&cursor=${first.next_cursor}`)).toEqual([c1]);
    for (const bad of [
      "version=0",
      "version=latest",
      "from=yesterday",
      "feedback=meh",
      "source=web",
      "status=ok",
    ]) {
      expect(
        (await builder.request(`/api/conversations?${bad}`, { cookie: seeded.cookie })).status,
        bad,
      ).toBe(422);
    }
    const other = await builder.signUp();
    expect(
      (await json<Page>(await builder.request("/api/conversations", { cookie: other.cookie }), 200)).data,
    ).toEqual([]);
  });

  it("list each conversation with its end user, message count, ratings and last message time", async () => {
    const page = await json<Page<Record<string, unknown>>>(
      await builder.request(`/api/conversations?app_id=${seeded.agentApp}`, { cookie: seeded.cookie }),
      200,
    );
    expect(page.data[0]).toMatchObject({
      id: seeded.c[1],
      source: "app",
      version: 1,
      end_user: { id: seeded.ann, kind: "customer", external_id: "ann", name: "Ann" },
      message_count: 2,
      likes: 1,
      dislikes: 0,
      last_message_at: new Date(at(2).getTime() + 2 * 60_000).toISOString(),
    });
  });

  it("open a conversation with its messages oldest first, tool calls, citations, both ratings, source and latency", async () => {
    const detail = await json<Record<string, unknown> & { messages: Record<string, unknown>[] }>(
      await builder.request(`/api/conversations/${seeded.c[0]}`, { cookie: seeded.cookie }),
      200,
    );
    expect(detail).toMatchObject({ id: seeded.c[0], source: "studio", message_count: 2, dislikes: 1 });
    expect(detail.has_more_messages).toBe(false);
    expect(detail.messages.map((message) => message.role)).toEqual(["user", "assistant"]);
    expect(detail.messages[1]).toMatchObject({
      id: seeded.m.m1a,
      source: "model",
      latency_ms: 1200,
      usage: { input_tokens: 100, output_tokens: 20 },
      tool_calls: [{ name: "knowledge_search", duration_ms: 40 }],
      citations: [{ document_name: "policy.md", chunk_id: "chk_1", text: "Refunds within 30 days." }],
      feedback: [{ source: "user", rating: "dislike", comment: 'Too slow, and "vague"' }],
    });
    const annotated = await json<{ messages: Record<string, unknown>[] }>(
      await builder.request(`/api/conversations/${seeded.c[1]}`, { cookie: seeded.cookie }),
      200,
    );
    expect(annotated.messages[1]).toMatchObject({
      source: "annotation",
      annotation: { id: "ann_1", similarity: 0.93 },
      feedback: [{ source: "team", rating: "like" }],
    });
    const other = await builder.signUp();
    expect(
      (await builder.request(`/api/conversations/${seeded.c[0]}`, { cookie: other.cookie })).status,
    ).toBe(404);
  });
});

describe("team feedback", () => {
  it("rates an answer as the team beside the end user's rating, changes it, takes it back; both filter the logs", async () => {
    const user = await builder.signUp();
    const agentId = await createAgentOnFake(builder, user.cookie, openai, KEY);
    const turn = await json<{ conversation_id: string; message: { id: string } }>(
      await builder.request(`/api/agents/${agentId}/chat`, {
        method: "POST",
        cookie: user.cookie,
        json: { message: "What is 2 + 2?" },
      }),
      200,
    );
    const rate = (body: unknown, id = turn.message.id, cookie = user.cookie) =>
      builder.request(`/api/messages/${id}/feedback`, { method: "POST", cookie, json: body });
    expect(await json(await rate({ rating: "dislike", comment: "Should be 4" }), 200)).toEqual({
      message_id: turn.message.id,
      source: "team",
      rating: "dislike",
      comment: "Should be 4",
    });
    const disliked = await json<Page>(
      await builder.request("/api/conversations?feedback=dislike&feedback_source=team", {
        cookie: user.cookie,
      }),
      200,
    );
    expect(disliked.data.map((row) => row.id)).toEqual([turn.conversation_id]);
    await json(await rate({ rating: "like" }), 200);
    const shown = await json<{ messages: { feedback: unknown[] }[] }>(
      await builder.request(`/api/conversations/${turn.conversation_id}`, { cookie: user.cookie }),
      200,
    );
    expect(shown.messages[1]?.feedback).toEqual([
      { source: "team", rating: "like", comment: null, updated_at: expect.any(String) },
    ]);
    expect(await json(await rate({ rating: null }), 200)).toMatchObject({ rating: null, comment: null });
    const none = await json<Page>(
      await builder.request("/api/conversations?feedback=any", { cookie: user.cookie }),
      200,
    );
    expect(none.data).toEqual([]);

    const userMessage = shown.messages[0] as unknown as { id: string };
    expect((await rate({ rating: "like" }, userMessage.id)).status).toBe(404);
    expect((await rate({ rating: "like" }, turn.message.id, seeded.cookie)).status).toBe(404);
    expect((await rate({ rating: "meh" })).status).toBe(422);
  });
});

describe("run logs", () => {
  it("filter by workflow, app, version, end user, status, trigger, time and text in inputs and outputs", async () => {
    const [r1, r2, r3, r4] = seeded.r;
    expect(await runIds("")).toEqual([r4, r3, r2, r1]);
    expect(await runIds(`workflow_id=${seeded.workflow2}`)).toEqual([r4, r3]);
    expect(await runIds(`app_id=${seeded.workflowApp}`)).toEqual([r2]);
    expect(await runIds("version=2")).toEqual([r3]);
    expect(await runIds("version=draft")).toEqual([r4, r1]);
    expect(await runIds("end_user=bob")).toEqual([r2]);
    expect(await runIds("status=failed")).toEqual([r2]);
    expect(await runIds("status=cancelled")).toEqual([r4]);
    expect(await runIds("trigger=hook")).toEqual([r3]);
    expect(await runIds("from=2026-03-02&to=2026-03-04")).toEqual([r3, r2]);
    expect(await runIds("q=jakarta")).toEqual([r1]);
    expect(await runIds(`q=${encodeURIComponent('say "hi"')}`)).toEqual([r2]);
    expect(await runIds(`q=${encodeURIComponent("タワー")}`)).toEqual([r3]);
    expect(await runIds(`q=note`)).toEqual([]);
    const page = await json<Page<Record<string, unknown>>>(
      await builder.request(`/api/runs?status=failed`, { cookie: seeded.cookie }),
      200,
    );
    expect(page.data[0]).toMatchObject({
      trigger: "app",
      app_id: seeded.workflowApp,
      end_user_id: seeded.bob,
      version: 1,
      error: { code: "node_failed" },
    });
    expect(page.data[0]).not.toHaveProperty("graph");
  });
});

describe("export", () => {
  const download = async (path: string) => {
    const response = await builder.request(path, { cookie: seeded.cookie });
    expect(response.status, path).toBe(200);
    return { response, bytes: new Uint8Array(await response.arrayBuffer()) };
  };

  it("exports messages as CSV a spreadsheet opens: BOM, CRLF, RFC 4180 quotes, non-Latin text, formulas kept as text", async () => {
    const { response, bytes } = await download("/api/conversations/export?format=csv");
    expect(response.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(response.headers.get("content-disposition")).toMatch(
      /^attachment; filename="conversations-.*\.csv"$/,
    );
    expect([...bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const text = new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes);
    expect(text.split("\r\n")[0]).toBe(
      "\uFEFFconversation_id,message_id,created_at,agent_id,app_id,end_user_id,conversation_source,title,role,content," +
        "answered_by,annotation_id,annotation_similarity,tool_calls,provider,model,version,finish_reason,input_tokens," +
        "output_tokens,latency_ms,user_rating,user_comment,team_rating,team_comment",
    );
    const parsed = Papa.parse<Record<string, string>>(text.slice(1), {
      header: true,
      newline: "\r\n",
      skipEmptyLines: true,
    });
    expect(parsed.errors).toEqual([]);
    expect(parsed.data.map((row) => row.message_id)).toHaveLength(6);
    const refund = parsed.data.find((row) => row.message_id === seeded.m.m1a);
    expect(refund).toMatchObject({
      conversation_id: seeded.c[0],
      role: "assistant",
      content: 'Refunds take "5 days", sometimes\nmore.',
      answered_by: "model",
      tool_calls: "knowledge_search",
      input_tokens: "100",
      latency_ms: "1200",
      user_rating: "dislike",
      user_comment: 'Too slow, and "vague"',
      team_rating: "",
    });
    expect(parsed.data.find((row) => row.message_id === seeded.m.m2a)).toMatchObject({
      content: "東京の倉庫から発送しました。",
      answered_by: "annotation",
      annotation_similarity: "0.93",
      team_rating: "like",
      app_id: seeded.agentApp,
      end_user_id: seeded.ann,
    });
    const formula = parsed.data.find((row) => row.conversation_id === seeded.c[3] && row.role === "user");
    expect(formula?.content).toBe('\'=HYPERLINK("http://evil")');
  });

  it("exports the same filters as the list, as JSON lines", async () => {
    const { response, bytes } = await download("/api/conversations/export?feedback=dislike&format=jsonl");
    expect(response.headers.get("content-type")).toBe("application/x-ndjson; charset=utf-8");
    const lines = new TextDecoder()
      .decode(bytes)
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect([...new Set(lines.map((line) => line.conversation_id))]).toEqual([seeded.c[0], seeded.c[3]]);
    expect(lines.find((line) => line.message_id === seeded.m.m4a)).toMatchObject({
      content: "I cannot open links.",
      feedback: {
        user: { rating: "like", comment: null },
        team: { rating: "dislike", comment: "Should explain why" },
      },
    });
    expect(lines.find((line) => line.message_id === seeded.m.m1a)).toMatchObject({
      tool_calls: [{ name: "knowledge_search", input: { query: "refunds" } }],
      usage: { input_tokens: 100, output_tokens: 20 },
    });
    const none = await download("/api/conversations/export?end_user=nobody&format=csv");
    expect(new TextDecoder().decode(none.bytes).split("\r\n").filter(Boolean)).toHaveLength(1);
  });

  it("exports runs with their inputs and outputs as JSON text in CSV, and whole in JSON lines", async () => {
    const csv = new TextDecoder("utf-8", { ignoreBOM: true }).decode(
      (await download("/api/runs/export?format=csv")).bytes,
    );
    expect(csv.startsWith("\uFEFFrun_id,workflow_id,")).toBe(true);
    const parsed = Papa.parse<Record<string, string>>(csv.slice(1), {
      header: true,
      newline: "\r\n",
      skipEmptyLines: true,
    });
    expect(parsed.errors).toEqual([]);
    expect(parsed.data.map((row) => row.run_id)).toEqual([...seeded.r]);
    expect(parsed.data[1]).toMatchObject({
      status: "failed",
      trigger: "app",
      end_user_id: seeded.bob,
      inputs: '{"note":"say \\"hi\\", please"}',
      error_code: "node_failed",
      error_message: "The HTTP node answered 500.",
    });
    expect(JSON.parse(parsed.data[2]?.outputs ?? "")).toEqual({ text: "東京タワー" });
    const lines = new TextDecoder()
      .decode((await download("/api/runs/export?trigger=app")).bytes)
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ run_id: seeded.r[1], inputs: { note: 'say "hi", please' } });
  });
});

describe("every surface records where it came from", () => {
  it("studio, API key and app conversations, and API, trigger and app runs, carry their source, app, end user and version", async () => {
    const user = await builder.signUp();
    const agentId = await createAgentOnFake(builder, user.cookie, openai, KEY);
    const key = (
      await json<{ key: string }>(
        await builder.request("/api/keys", { method: "POST", cookie: user.cookie, json: { name: "ci" } }),
        201,
      )
    ).key;
    await json(
      await builder.request(`/api/agents/${agentId}/versions`, { method: "POST", cookie: user.cookie }),
      201,
    );
    const app = await json<{ id: string; slug: string }>(
      await builder.request("/api/apps", {
        method: "POST",
        cookie: user.cookie,
        json: { agent_id: agentId },
      }),
      201,
    );
    const ask = (init: { cookie?: string; bearer?: string }) =>
      builder
        .request(`/api/agents/${agentId}/chat`, { method: "POST", json: { message: "hi" }, ...init })
        .then((response) => json<{ conversation_id: string }>(response, 200));
    const studio = await ask({ cookie: user.cookie });
    const api = await ask({ bearer: key });
    const session = await json<{ token: string; end_user_id: string }>(
      await builder.request(`/api/public/apps/${app.slug}/session`, { method: "POST" }),
      201,
    );
    const viaApp = await json<{ conversation_id: string }>(
      await builder.request(`/api/public/apps/${app.slug}/chat`, {
        method: "POST",
        bearer: session.token,
        json: { message: "hi" },
      }),
      200,
    );
    const listed = await json<Page<Record<string, unknown>>>(
      await builder.request("/api/conversations", { cookie: user.cookie }),
      200,
    );
    const byId = new Map(listed.data.map((row) => [row.id, row]));
    expect(byId.get(studio.conversation_id)).toMatchObject({ source: "studio", app_id: null, version: null });
    expect(byId.get(api.conversation_id)).toMatchObject({ source: "api", app_id: null, version: null });
    expect(byId.get(viaApp.conversation_id)).toMatchObject({
      source: "app",
      app_id: app.id,
      end_user_id: session.end_user_id,
      version: 1,
    });

    const workflowId = await createWorkflow(builder, user.cookie, {
      nodes: [
        node("start", "start", { inputs: [{ name: "city", type: "string", required: true }] }),
        node("done", "end", { outputs: [{ name: "greeting", value: "Hello {{start.city}}" }] }),
      ],
      edges: [edge("start", "done")],
    });
    const published = await json<{ version: number }>(
      await builder.request(`/api/workflows/${workflowId}/versions`, { method: "POST", cookie: user.cookie }),
      201,
    );
    const workflow = await json<{ trigger_url: string }>(
      await builder.request(`/api/workflows/${workflowId}`, { cookie: user.cookie }),
      200,
    );
    await json(
      await builder.request(`/api/workflows/${workflowId}/runs`, {
        method: "POST",
        cookie: user.cookie,
        json: { inputs: { city: "Bandung" } },
      }),
      200,
    );
    const hook = await fetch(
      `${new URL(workflow.trigger_url).pathname.replace(/^/, builder.url)}?wait=true`,
      {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ city: "Medan" }),
      },
    );
    expect(hook.status).toBe(200);
    const workflowApp = await json<{ slug: string; id: string }>(
      await builder.request("/api/apps", {
        method: "POST",
        cookie: user.cookie,
        json: { workflow_id: workflowId },
      }),
      201,
    );
    const runner = await json<{ token: string; end_user_id: string }>(
      await builder.request(`/api/public/apps/${workflowApp.slug}/session`, { method: "POST" }),
      201,
    );
    await json(
      await builder.request(`/api/public/apps/${workflowApp.slug}/runs`, {
        method: "POST",
        bearer: runner.token,
        json: { inputs: { city: "Surabaya" } },
      }),
      200,
    );
    const runs = await json<Page<Record<string, unknown>>>(
      await builder.request(`/api/runs?workflow_id=${workflowId}`, { cookie: user.cookie }),
      200,
    );
    expect(runs.data.map((row) => [row.trigger, row.app_id, row.end_user_id, row.version])).toEqual([
      ["app", workflowApp.id, runner.end_user_id, published.version],
      ["hook", null, null, published.version],
      ["api", null, null, null],
    ]);
  });
});
