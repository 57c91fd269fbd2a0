import { type FakeProvider, startFakeOpenAI } from "@app/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgentOnFake } from "../../test/agent-support.ts";
import { startTestBuilder, type TestBuilder } from "../../test/harness.ts";
import { createWorkflow, edge, node } from "../../test/workflow-support.ts";

let builder: TestBuilder;
let openai: FakeProvider;
let alice: string;
let bob: string;
const KEY = "sk-compat-good-key-0001";

beforeAll(async () => {
  openai = await startFakeOpenAI({ apiKey: KEY });
  // The fake answers with the instructions it was given, so a test reads which version ran.
  openai.script = (turn) => ({
    text: `instructions: ${turn.messages.find((message) => message.role === "system")?.text ?? "none"}`,
  });
  builder = await startTestBuilder({ env: { ALLOW_PRIVATE_URLS: "1" } });
  alice = (await builder.signUp()).cookie;
  bob = (await builder.signUp()).cookie;
});
afterAll(async () => {
  await builder?.stop();
  await openai?.close();
});

async function json<T>(response: Response, status: number): Promise<T> {
  expect(response.status, await response.clone().text()).toBe(status);
  return (await response.json()) as T;
}

function chat(agentId: string, body: Record<string, unknown>) {
  return builder.request(`/api/agents/${agentId}/chat`, { method: "POST", cookie: alice, json: body });
}

const answerGraph = (answer: string) => ({
  nodes: [
    node("start", "start", { inputs: [] }),
    node("done", "end", { outputs: [{ name: "answer", value: answer }] }),
  ],
  edges: [edge("start", "done")],
});

describe("agent versions", () => {
  it("publishes numbered versions; the draft keeps changing and a turn runs the version it names", async () => {
    const agentId = await createAgentOnFake(builder, alice, openai, KEY, { instructions: "Be formal." });
    const fresh = await json<Record<string, unknown>>(
      await builder.request(`/api/agents/${agentId}`, { cookie: alice }),
      200,
    );
    expect(fresh).toMatchObject({
      published_version: null,
      published_at: null,
      has_unpublished_changes: true,
    });

    const v1 = await json<Record<string, unknown>>(
      await builder.request(`/api/agents/${agentId}/versions`, {
        method: "POST",
        cookie: alice,
        json: { notes: "first" },
      }),
      201,
    );
    expect(v1).toMatchObject({ agent_id: agentId, version: 1, notes: "first", instructions: "Be formal." });
    const published = await json<Record<string, unknown>>(
      await builder.request(`/api/agents/${agentId}`, { cookie: alice }),
      200,
    );
    expect(published).toMatchObject({ published_version: 1, has_unpublished_changes: false });

    await json(
      await builder.request(`/api/agents/${agentId}`, {
        method: "PATCH",
        cookie: alice,
        json: { instructions: "Be casual." },
      }),
      200,
    );
    const edited = await json<Record<string, unknown>>(
      await builder.request(`/api/agents/${agentId}`, { cookie: alice }),
      200,
    );
    expect(edited).toMatchObject({ published_version: 1, has_unpublished_changes: true });

    type Answer = { conversation_id: string; message: { content: string; version: number | null } };
    const onDraft = await json<Answer>(await chat(agentId, { message: "hi" }), 200);
    expect(onDraft.message).toMatchObject({ content: "instructions: Be casual.", version: null });
    const onPublished = await json<Answer>(await chat(agentId, { message: "hi", version: "published" }), 200);
    expect(onPublished.message).toMatchObject({ content: "instructions: Be formal.", version: 1 });
    const conversation = await json<{ version: number | null }>(
      await builder.request(`/api/conversations/${onPublished.conversation_id}`, { cookie: alice }),
      200,
    );
    expect(conversation.version).toBe(1);

    await json(
      await builder.request(`/api/agents/${agentId}/versions`, { method: "POST", cookie: alice }),
      201,
    );
    const onV1 = await json<Answer>(await chat(agentId, { message: "hi", version: 1 }), 200);
    expect(onV1.message).toMatchObject({ content: "instructions: Be formal.", version: 1 });
    const onV2 = await json<Answer>(await chat(agentId, { message: "hi", version: "published" }), 200);
    expect(onV2.message).toMatchObject({ content: "instructions: Be casual.", version: 2 });

    const missing = await chat(agentId, { message: "hi", version: 9 });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: { code: "version_not_found", param: "version" } });
  });

  it("lists versions newest first in pages, and answers one by number", async () => {
    const agentId = await createAgentOnFake(builder, alice, openai, KEY);
    for (let i = 0; i < 3; i++) {
      await json(
        await builder.request(`/api/agents/${agentId}/versions`, { method: "POST", cookie: alice }),
        201,
      );
    }
    type Page = { data: { version: number }[]; has_more: boolean; next_cursor: string | null };
    const first = await json<Page>(
      await builder.request(`/api/agents/${agentId}/versions?limit=2`, { cookie: alice }),
      200,
    );
    expect(first.data.map((row) => row.version)).toEqual([3, 2]);
    expect(first).toMatchObject({ has_more: true, next_cursor: "2" });
    const second = await json<Page>(
      await builder.request(`/api/agents/${agentId}/versions?limit=2&cursor=${first.next_cursor}`, {
        cookie: alice,
      }),
      200,
    );
    expect(second.data.map((row) => row.version)).toEqual([1]);
    expect(second.has_more).toBe(false);
    const one = await json<{ version: number }>(
      await builder.request(`/api/agents/${agentId}/versions/2`, { cookie: alice }),
      200,
    );
    expect(one.version).toBe(2);
    expect((await builder.request(`/api/agents/${agentId}/versions/7`, { cookie: alice })).status).toBe(404);
    expect((await builder.request(`/api/agents/${agentId}/versions/0`, { cookie: alice })).status).toBe(422);
  });

  it("keeps another workspace's agent and versions out of reach (404)", async () => {
    const agentId = await createAgentOnFake(builder, alice, openai, KEY);
    await json(
      await builder.request(`/api/agents/${agentId}/versions`, { method: "POST", cookie: alice }),
      201,
    );
    for (const request of [
      builder.request(`/api/agents/${agentId}/versions`, { method: "POST", cookie: bob }),
      builder.request(`/api/agents/${agentId}/versions`, { cookie: bob }),
      builder.request(`/api/agents/${agentId}/versions/1`, { cookie: bob }),
    ]) {
      expect((await request).status).toBe(404);
    }
  });

  it("gives two publishes at once two numbers", async () => {
    const agentId = await createAgentOnFake(builder, alice, openai, KEY);
    const answers = await Promise.all(
      [1, 2, 3, 4].map(() =>
        builder.request(`/api/agents/${agentId}/versions`, { method: "POST", cookie: alice }),
      ),
    );
    const versions = await Promise.all(answers.map((answer) => json<{ version: number }>(answer, 201)));
    expect(versions.map((row) => row.version).sort()).toEqual([1, 2, 3, 4]);
  });
});

describe("workflow versions", () => {
  it("runs the draft from the API, a named version on request, and the published one from the trigger URL", async () => {
    const workflowId = await createWorkflow(builder, alice, answerGraph("one"));
    type Run = { outputs: { answer: string }; version: number | null; id: string };
    const run = (body: Record<string, unknown>) =>
      builder.request(`/api/workflows/${workflowId}/runs`, { method: "POST", cookie: alice, json: body });
    const workflow = await json<{ trigger_url: string }>(
      await builder.request(`/api/workflows/${workflowId}`, { cookie: alice }),
      200,
    );
    const hook = new URL(workflow.trigger_url).pathname;
    const trigger = async () =>
      json<Run>(await builder.request(`${hook}?wait=true`, { method: "POST", json: {} }), 200);

    // Never published: every caller runs the draft.
    expect((await trigger()).outputs.answer).toBe("one");
    await json(
      await builder.request(`/api/workflows/${workflowId}/versions`, {
        method: "POST",
        cookie: alice,
        json: { notes: "v1" },
      }),
      201,
    );
    await json(
      await builder.request(`/api/workflows/${workflowId}`, {
        method: "PATCH",
        cookie: alice,
        json: { graph: answerGraph("two") },
      }),
      200,
    );
    const onDraft = await json<Run>(await run({}), 200);
    expect(onDraft).toMatchObject({ outputs: { answer: "two" }, version: null });
    const onPublished = await json<Run>(await run({ version: "published" }), 200);
    expect(onPublished).toMatchObject({ outputs: { answer: "one" }, version: 1 });
    const triggered = await trigger();
    expect(triggered).toMatchObject({ outputs: { answer: "one" }, version: 1 });
    const stored = await json<Run>(
      await builder.request(`/api/runs/${triggered.id}`, { cookie: alice }),
      200,
    );
    expect(stored.version).toBe(1);

    await json(
      await builder.request(`/api/workflows/${workflowId}/versions`, { method: "POST", cookie: alice }),
      201,
    );
    expect((await trigger()).outputs.answer).toBe("two");
    expect((await json<Run>(await run({ version: 1 }), 200)).outputs.answer).toBe("one");
    expect((await run({ version: 3 })).status).toBe(404);

    const versions = await json<{ data: { version: number; graph: unknown }[] }>(
      await builder.request(`/api/workflows/${workflowId}/versions`, { cookie: alice }),
      200,
    );
    expect(versions.data.map((row) => row.version)).toEqual([2, 1]);
    expect((await builder.request(`/api/workflows/${workflowId}/versions/1`, { cookie: bob })).status).toBe(
      404,
    );
  });
});

describe("history", () => {
  const twoStepGraph = {
    nodes: [
      node("start", "start", { inputs: [] }),
      node("shout", "end", { outputs: [{ name: "answer", value: "HI" }] }),
    ],
    edges: [edge("start", "shout")],
  };

  it("diffs workflow versions and the draft: nodes and edges added, removed and changed, with fields before and after", async () => {
    const workflowId = await createWorkflow(builder, alice, answerGraph("one"));
    await json(
      await builder.request(`/api/workflows/${workflowId}/versions`, { method: "POST", cookie: alice }),
      201,
    );
    const changed = {
      nodes: [
        node("start", "start", { inputs: [] }),
        node("done", "end", { outputs: [{ name: "answer", value: "two" }] }),
        node("extra", "end", { outputs: [{ name: "answer", value: "three" }] }),
      ],
      edges: [edge("start", "extra")],
    };
    await json(
      await builder.request(`/api/workflows/${workflowId}`, {
        method: "PATCH",
        cookie: alice,
        json: {
          name: "Renamed",
          graph: { ...changed, edges: [edge("start", "done"), edge("start", "extra")] },
        },
      }),
      200,
    );
    type Diff = {
      from: number | string;
      to: number | string;
      fields: { field: string; before: unknown; after: unknown }[];
      nodes: {
        added: { id: string }[];
        removed: { id: string }[];
        changed: { id: string; changes: { field: string; before: unknown; after: unknown }[] }[];
      };
      edges: { added: { id: string }[]; removed: { id: string }[] };
    };
    const diff = await json<Diff>(
      await builder.request(`/api/workflows/${workflowId}/versions/1/diff/draft`, { cookie: alice }),
      200,
    );
    expect(diff).toMatchObject({ from: 1, to: "draft" });
    expect(diff.fields).toEqual([{ field: "name", before: "test workflow", after: "Renamed" }]);
    expect(diff.nodes.added.map((added) => added.id)).toEqual(["extra"]);
    expect(diff.nodes.removed).toEqual([]);
    expect(diff.nodes.changed).toEqual([
      {
        id: "done",
        changes: [
          {
            field: "data.outputs",
            before: [{ name: "answer", value: "one" }],
            after: [{ name: "answer", value: "two" }],
          },
        ],
      },
    ]);
    expect(diff.edges.added.map((added) => added.id)).toEqual(["start-extra"]);

    await json(
      await builder.request(`/api/workflows/${workflowId}/versions`, { method: "POST", cookie: alice }),
      201,
    );
    await json(
      await builder.request(`/api/workflows/${workflowId}`, {
        method: "PATCH",
        cookie: alice,
        json: { graph: twoStepGraph },
      }),
      200,
    );
    const removal = await json<Diff>(
      await builder.request(`/api/workflows/${workflowId}/versions/2/diff/draft`, { cookie: alice }),
      200,
    );
    expect(removal.nodes.removed.map((removed) => removed.id)).toEqual(["done", "extra"]);
    expect(removal.nodes.added.map((added) => added.id)).toEqual(["shout"]);
    expect(removal.edges.removed.map((removed) => removed.id).sort()).toEqual(["start-done", "start-extra"]);
    const between = await json<Diff>(
      await builder.request(`/api/workflows/${workflowId}/versions/1/diff/2`, { cookie: alice }),
      200,
    );
    expect(between.nodes.added.map((added) => added.id)).toEqual(["extra"]);
    const missing = await builder.request(`/api/workflows/${workflowId}/versions/9/diff/draft`, {
      cookie: alice,
    });
    expect(await json(missing, 404)).toMatchObject({ error: { code: "version_not_found", param: "a" } });
    expect(
      (await builder.request(`/api/workflows/${workflowId}/versions/1/diff/draft`, { cookie: bob })).status,
    ).toBe(404);
  });

  it("diffs agent versions: each changed field, the instructions line by line, knowledge bases added and removed", async () => {
    const agentId = await createAgentOnFake(builder, alice, openai, KEY, {
      instructions: "Greet.\nBe brief.\n",
    });
    await json(
      await builder.request(`/api/agents/${agentId}/versions`, { method: "POST", cookie: alice }),
      201,
    );
    await json(
      await builder.request(`/api/agents/${agentId}`, {
        method: "PATCH",
        cookie: alice,
        json: {
          instructions: "Greet.\nBe thorough.\n",
          model: "llama3.3",
          temperature: 0.5,
          tools: [{ type: "knowledge_search" }],
        },
      }),
      200,
    );
    type Diff = {
      fields: { field: string; before: unknown; after: unknown }[];
      instructions: { op: string; text: string }[] | null;
    };
    const diff = await json<Diff>(
      await builder.request(`/api/agents/${agentId}/versions/1/diff/draft`, { cookie: alice }),
      200,
    );
    expect(diff.fields.map((change) => change.field)).toEqual([
      "model",
      "instructions",
      "temperature",
      "tools",
    ]);
    expect(diff.fields[0]).toEqual({ field: "model", before: "llama3.2", after: "llama3.3" });
    expect(diff.instructions).toEqual([
      { op: "equal", text: "Greet.\n" },
      { op: "remove", text: "Be brief.\n" },
      { op: "add", text: "Be thorough.\n" },
    ]);
    const same = await json<Diff>(
      await builder.request(`/api/agents/${agentId}/versions/1/diff/1`, { cookie: alice }),
      200,
    );
    expect(same).toMatchObject({ fields: [], instructions: null });
  });

  it("restores a version into the draft; publishing it then gives a version equal to the restored one", async () => {
    const workflowId = await createWorkflow(builder, alice, answerGraph("one"));
    const v1 = await json<{ graph: unknown; name: string }>(
      await builder.request(`/api/workflows/${workflowId}/versions`, { method: "POST", cookie: alice }),
      201,
    );
    await json(
      await builder.request(`/api/workflows/${workflowId}`, {
        method: "PATCH",
        cookie: alice,
        json: { graph: answerGraph("two") },
      }),
      200,
    );
    const restored = await json<{ graph: unknown; has_unpublished_changes: boolean }>(
      await builder.request(`/api/workflows/${workflowId}/versions/1/restore`, {
        method: "POST",
        cookie: alice,
      }),
      200,
    );
    expect(restored.graph).toEqual(v1.graph);
    expect(restored.has_unpublished_changes).toBe(true);
    const v2 = await json<{ version: number; graph: unknown; name: string }>(
      await builder.request(`/api/workflows/${workflowId}/versions`, { method: "POST", cookie: alice }),
      201,
    );
    expect(v2).toMatchObject({ version: 2, graph: v1.graph, name: v1.name });
    const diff = await json<{ nodes: { added: unknown[]; removed: unknown[]; changed: unknown[] } }>(
      await builder.request(`/api/workflows/${workflowId}/versions/1/diff/2`, { cookie: alice }),
      200,
    );
    expect(diff.nodes).toEqual({ added: [], removed: [], changed: [] });

    const agentId = await createAgentOnFake(builder, alice, openai, KEY, { instructions: "First." });
    await json(
      await builder.request(`/api/agents/${agentId}/versions`, { method: "POST", cookie: alice }),
      201,
    );
    await json(
      await builder.request(`/api/agents/${agentId}`, {
        method: "PATCH",
        cookie: alice,
        json: { instructions: "Second." },
      }),
      200,
    );
    const agent = await json<{ instructions: string }>(
      await builder.request(`/api/agents/${agentId}/versions/1/restore`, { method: "POST", cookie: alice }),
      200,
    );
    expect(agent.instructions).toBe("First.");
    expect(
      (await builder.request(`/api/agents/${agentId}/versions/5/restore`, { method: "POST", cookie: alice }))
        .status,
    ).toBe(404);
    expect(
      (await builder.request(`/api/agents/${agentId}/versions/1/restore`, { method: "POST", cookie: bob }))
        .status,
    ).toBe(404);
  });
});

describe("edit conflicts", () => {
  it("answers an ETag on every read and write; a write based on a stale revision is refused with 412 naming the current one", async () => {
    const workflowId = await createWorkflow(builder, alice, answerGraph("one"));
    const read = await builder.request(`/api/workflows/${workflowId}`, { cookie: alice });
    const loaded = read.headers.get("etag") ?? "";
    expect(loaded).toMatch(/^"[0-9a-z]+"$/);
    const patch = (ifMatch: string | undefined, answer: string) =>
      builder.request(`/api/workflows/${workflowId}`, {
        method: "PATCH",
        cookie: alice,
        json: { graph: answerGraph(answer) },
        ...(ifMatch ? { headers: { "if-match": ifMatch } } : {}),
      });
    const first = await patch(loaded, "tab one");
    expect(first.status).toBe(200);
    const current = first.headers.get("etag") ?? "";
    expect(current).not.toBe(loaded);
    const stale = await patch(loaded, "tab two");
    expect(await json(stale, 412)).toMatchObject({ error: { code: "edit_conflict", param: "If-Match" } });
    expect(stale.headers.get("etag")).toBe(current);
    const kept = await json<{ graph: unknown }>(
      await builder.request(`/api/workflows/${workflowId}`, { cookie: alice }),
      200,
    );
    expect(kept.graph).toEqual(answerGraph("tab one"));
    expect((await patch(current, "tab two, after reloading")).status).toBe(200);
    expect((await patch("*", "any revision")).status).toBe(200);
    expect((await patch(undefined, "no condition, as before")).status).toBe(200);
    expect((await patch('W/"weak"', "weak tags never match")).status).toBe(412);
  });

  it("lets exactly one of two writers with the same revision through", async () => {
    const agentId = await createAgentOnFake(builder, alice, openai, KEY);
    const loaded =
      (await builder.request(`/api/agents/${agentId}`, { cookie: alice })).headers.get("etag") ?? "";
    const answers = await Promise.all(
      ["Tab A.", "Tab B."].map((instructions) =>
        builder.request(`/api/agents/${agentId}`, {
          method: "PATCH",
          cookie: alice,
          headers: { "if-match": loaded },
          json: { instructions },
        }),
      ),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 412]);

    const app = await json<{ id: string }>(
      await builder.request("/api/apps", { method: "POST", cookie: alice, json: { agent_id: agentId } }),
      201,
    );
    const appTag =
      (await builder.request(`/api/apps/${app.id}`, { cookie: alice })).headers.get("etag") ?? "";
    const appAnswers = await Promise.all(
      ["One", "Two"].map((title) =>
        builder.request(`/api/apps/${app.id}`, {
          method: "PATCH",
          cookie: alice,
          headers: { "if-match": appTag },
          json: { title },
        }),
      ),
    );
    expect(appAnswers.map((answer) => answer.status).sort()).toEqual([200, 412]);
  });
});
