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
