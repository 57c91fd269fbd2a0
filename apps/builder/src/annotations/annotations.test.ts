import { type FakeProvider, startFakeOpenAI } from "@app/testing";
import Papa from "papaparse";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgentOnFake } from "../../test/agent-support.ts";
import { startTestBuilder, type TestBuilder } from "../../test/harness.ts";
import { localEmbedding } from "../knowledge/local-embedder.ts";

let builder: TestBuilder;
let openai: FakeProvider;
let alice: string;
let bob: string;
const KEY = "sk-compat-good-key-0001";

beforeAll(async () => {
  openai = await startFakeOpenAI({ apiKey: KEY });
  openai.script = (turn) => ({
    text: `model: ${turn.messages.findLast((message) => message.role === "user")?.text ?? ""}`,
    usage: { input: 10, output: 5 },
  });
  builder = await startTestBuilder({ env: { ALLOW_PRIVATE_URLS: "1" } });
  alice = (await builder.signUp()).cookie;
  bob = (await builder.signUp()).cookie;
});
afterAll(async () => {
  await builder?.stop();
  await openai?.close();
});

async function json<T = Record<string, unknown>>(response: Response, status: number): Promise<T> {
  expect(response.status, await response.clone().text()).toBe(status);
  return (await response.json()) as T;
}

interface Annotation {
  id: string;
  question: string;
  answer: string;
  hit_count: number;
  last_hit_at: string | null;
}

interface ChatAnswer {
  conversation_id: string;
  message: {
    id: string;
    content: string;
    source: string | null;
    annotation: { id: string; similarity: number } | null;
    usage: unknown;
    latency_ms: number | null;
  };
}

async function annotatedAgent(threshold = 0.9) {
  const agentId = await createAgentOnFake(builder, alice, openai, KEY, {
    annotation_reply: { enabled: true, threshold },
  });
  return agentId;
}

async function annotate(agentId: string, question: string, answer: string, cookie = alice) {
  return json<Annotation>(
    await builder.request(`/api/agents/${agentId}/annotations`, {
      method: "POST",
      cookie,
      json: { question, answer },
    }),
    201,
  );
}

async function ask(agentId: string, message: string) {
  return json<ChatAnswer>(
    await builder.request(`/api/agents/${agentId}/chat`, {
      method: "POST",
      cookie: alice,
      json: { message },
    }),
    200,
  );
}

function cosine(a: string, b: string): number {
  const x = localEmbedding(a);
  const y = localEmbedding(b);
  const dot = x.reduce((sum, value, index) => sum + value * (y[index] ?? 0), 0);
  return dot / (Math.hypot(...x) * Math.hypot(...y));
}

describe("annotation replies", () => {
  it("answers a similar enough question with the annotation, without calling the model, and counts the hit", async () => {
    const agentId = await annotatedAgent(0.8);
    const annotation = await annotate(
      agentId,
      "How do I reset my password?",
      "Open Settings, then Security, then Reset password.",
    );
    const calls = openai.turns.length;

    const first = await ask(agentId, "How do I reset my password?");
    expect(first.message).toMatchObject({
      content: "Open Settings, then Security, then Reset password.",
      source: "annotation",
      annotation: { id: annotation.id },
      usage: null,
    });
    expect(first.message.annotation?.similarity).toBeCloseTo(1, 5);
    expect(first.message.latency_ms).toEqual(expect.any(Number));

    // A reworded question, above the threshold: still the annotation.
    const reworded = "how do i reset my password please";
    expect(cosine(reworded, "How do I reset my password?")).toBeGreaterThanOrEqual(0.8);
    const second = await ask(agentId, reworded);
    expect(second.message.source).toBe("annotation");
    expect(second.message.annotation?.similarity).toBeCloseTo(
      cosine(reworded, "How do I reset my password?"),
      4,
    );
    expect(openai.turns.length).toBe(calls);

    const counted = await json<Annotation>(
      await builder.request(`/api/agents/${agentId}/annotations/${annotation.id}`, { cookie: alice }),
      200,
    );
    expect(counted.hit_count).toBe(2);
    expect(counted.last_hit_at).not.toBeNull();

    // The conversation holds both sides, as a model turn's would.
    const messages = await json<{ data: { role: string; source: string | null; annotation: unknown }[] }>(
      await builder.request(`/api/conversations/${first.conversation_id}/messages`, { cookie: alice }),
      200,
    );
    expect(messages.data.map((row) => [row.role, row.source])).toEqual([
      ["assistant", "annotation"],
      ["user", null],
    ]);
  });

  it("sends a question under the threshold to the model, and counts no hit", async () => {
    const agentId = await annotatedAgent(0.9);
    const annotation = await annotate(agentId, "How do I reset my password?", "Settings → Security.");
    const other = "What are your opening hours on Sunday?";
    expect(cosine(other, "How do I reset my password?")).toBeLessThan(0.9);
    const calls = openai.turns.length;

    const answer = await ask(agentId, other);
    expect(answer.message).toMatchObject({ content: `model: ${other}`, source: "model", annotation: null });
    expect(openai.turns.length).toBe(calls + 1);
    const unchanged = await json<Annotation>(
      await builder.request(`/api/agents/${agentId}/annotations/${annotation.id}`, { cookie: alice }),
      200,
    );
    expect(unchanged.hit_count).toBe(0);
  });

  it("applies the threshold exactly: the same pair hits at the similarity and misses just above it", async () => {
    const question = "Can I pay by bank transfer?";
    const asked = "bank transfer payments accepted?";
    const similarity = cosine(asked, question);
    expect(similarity).toBeGreaterThan(0.3);
    expect(similarity).toBeLessThan(0.99);
    const above = await annotatedAgent(Math.min(1, similarity + 0.01));
    await annotate(above, question, "Yes, to our BCA account.");
    expect((await ask(above, asked)).message.source).toBe("model");
    const at = await annotatedAgent(Math.max(0, similarity - 0.01));
    await annotate(at, question, "Yes, to our BCA account.");
    expect((await ask(at, asked)).message).toMatchObject({
      source: "annotation",
      content: "Yes, to our BCA account.",
    });
  });

  it("answers with the most similar of several annotations, and leaves them alone while replies are off", async () => {
    const agentId = await annotatedAgent(0.5);
    await annotate(agentId, "Where is my order?", "Track it at /orders.");
    const refunds = await annotate(agentId, "How do refunds work?", "Refunds take five working days.");
    expect((await ask(agentId, "how do refunds work")).message).toMatchObject({
      content: "Refunds take five working days.",
      annotation: { id: refunds.id },
    });

    const off = await builder.request(`/api/agents/${agentId}`, {
      method: "PATCH",
      cookie: alice,
      json: { annotation_reply: { enabled: false, threshold: 0.5 } },
    });
    expect((await json<{ annotation_reply: unknown }>(off, 200)).annotation_reply).toEqual({
      enabled: false,
      threshold: 0.5,
      embedding: { provider: "local", model: "feature-hashing-v1" },
    });
    const calls = openai.turns.length;
    expect((await ask(agentId, "how do refunds work")).message.source).toBe("model");
    expect(openai.turns.length).toBe(calls + 1);
  });

  it("falls back to the model when the questions cannot be embedded, and says why in the log only", async () => {
    // The credential of openai-compatible points at the chat fake, which has no embeddings route.
    const agentId = await createAgentOnFake(builder, alice, openai, KEY, {
      annotation_reply: {
        enabled: true,
        threshold: 0.1,
        embedding: { provider: "openai-compatible", model: "e" },
      },
    });
    await annotate(agentId, "How do refunds work?", "Five working days.");
    const answer = await ask(agentId, "How do refunds work?");
    expect(answer.message.source).toBe("model");
  });

  it("re-embeds annotations when the question changes, so the new question is what matches", async () => {
    const agentId = await annotatedAgent(0.95);
    const annotation = await annotate(agentId, "What is the capital of France?", "Paris.");
    expect((await ask(agentId, "What is the capital of France?")).message.source).toBe("annotation");
    const changed = await json<Annotation>(
      await builder.request(`/api/agents/${agentId}/annotations/${annotation.id}`, {
        method: "PATCH",
        cookie: alice,
        json: { question: "Which city hosts the Louvre?" },
      }),
      200,
    );
    expect(changed.question).toBe("Which city hosts the Louvre?");
    expect((await ask(agentId, "What is the capital of France?")).message.source).toBe("model");
    expect((await ask(agentId, "Which city hosts the Louvre?")).message.source).toBe("annotation");
  });
});

describe("annotations CRUD", () => {
  it("lists, searches, changes and deletes an agent's annotations; another workspace gets 404", async () => {
    const agentId = await createAgentOnFake(builder, alice, openai, KEY);
    const first = await annotate(agentId, "Opening hours?", "9 to 5, 50% off on Mondays.");
    const second = await annotate(agentId, "Parking?", "Free parking behind the shop.");
    const page = await json<{ data: Annotation[]; has_more: boolean; next_cursor: string | null }>(
      await builder.request(`/api/agents/${agentId}/annotations?limit=1`, { cookie: alice }),
      200,
    );
    expect(page.data.map((row) => row.id)).toEqual([second.id]);
    const next = await json<{ data: Annotation[] }>(
      await builder.request(`/api/agents/${agentId}/annotations?limit=1&cursor=${page.next_cursor}`, {
        cookie: alice,
      }),
      200,
    );
    expect(next.data.map((row) => row.id)).toEqual([first.id]);
    const searched = await json<{ data: Annotation[] }>(
      await builder.request(`/api/agents/${agentId}/annotations?q=${encodeURIComponent("50%")}`, {
        cookie: alice,
      }),
      200,
    );
    expect(searched.data.map((row) => row.id)).toEqual([first.id]);

    for (const [method, path] of [
      ["GET", `/api/agents/${agentId}/annotations`],
      ["GET", `/api/agents/${agentId}/annotations/${first.id}`],
      ["DELETE", `/api/agents/${agentId}/annotations/${first.id}`],
    ] as const) {
      expect((await builder.request(path, { method, cookie: bob })).status).toBe(404);
    }
    expect(
      (
        await builder.request(`/api/agents/${agentId}/annotations`, {
          method: "POST",
          cookie: bob,
          json: { question: "q", answer: "a" },
        })
      ).status,
    ).toBe(404);

    expect(
      (
        await builder.request(`/api/agents/${agentId}/annotations/${first.id}`, {
          method: "DELETE",
          cookie: alice,
        })
      ).status,
    ).toBe(204);
    expect(
      (await builder.request(`/api/agents/${agentId}/annotations/${first.id}`, { cookie: alice })).status,
    ).toBe(404);
  });
});

describe("annotations CSV import", () => {
  const csv = (rows: string[][]) => Papa.unparse(rows, { newline: "\r\n" });

  it("imports a CSV with commas, quotes, newlines and non-Latin text, as text/csv or multipart", async () => {
    const agentId = await createAgentOnFake(builder, alice, openai, KEY);
    const rows = [
      ["answer", "note", "Question"],
      ['He said "yes", then left.', "ignored", "What did he say?"],
      ["Line one\r\nLine two", "", "Two lines?"],
      ["東京は日本の首都です。", "", "日本の首都は？"],
    ];
    const imported = await json<{ created: number; updated: number }>(
      await builder.request(`/api/agents/${agentId}/annotations/import`, {
        method: "POST",
        cookie: alice,
        headers: { "content-type": "text/csv; charset=utf-8" },
        body: `\uFEFF${csv(rows)}`,
      }),
      200,
    );
    expect(imported).toEqual({ created: 3, updated: 0 });
    const listed = await json<{ data: Annotation[] }>(
      await builder.request(`/api/agents/${agentId}/annotations?limit=100`, { cookie: alice }),
      200,
    );
    expect(Object.fromEntries(listed.data.map((row) => [row.question, row.answer]))).toEqual({
      "What did he say?": 'He said "yes", then left.',
      "Two lines?": "Line one\r\nLine two",
      "日本の首都は？": "東京は日本の首都です。",
    });

    // The same file again, as a form upload with one answer changed: that annotation is updated.
    const form = new FormData();
    const changed = rows.map((row) => [...row]);
    (changed[3] as string[])[0] = "東京です。";
    form.set("file", new Blob([csv(changed)], { type: "text/csv" }), "annotations.csv");
    const again = await json<{ created: number; updated: number }>(
      await builder.request(`/api/agents/${agentId}/annotations/import`, {
        method: "POST",
        cookie: alice,
        body: form,
      }),
      200,
    );
    expect(again).toEqual({ created: 0, updated: 3 });
    const after = await json<{ data: Annotation[] }>(
      await builder.request(`/api/agents/${agentId}/annotations?q=${encodeURIComponent("首都")}`, {
        cookie: alice,
      }),
      200,
    );
    expect(after.data.map((row) => row.answer)).toEqual(["東京です。"]);
  });

  it("refuses a file with bad rows as a whole, naming each row and what is wrong with it", async () => {
    const agentId = await createAgentOnFake(builder, alice, openai, KEY);
    const body = [
      "question,answer",
      "Fine?,Yes.",
      ",No question here",
      "No answer?,",
      "Fine?,Again.",
      "",
      `Long?,${"x".repeat(32_001)}`,
    ].join("\r\n");
    const refused = await json<{ error: { code: string; details: { path: string; message: string }[] } }>(
      await builder.request(`/api/agents/${agentId}/annotations/import`, {
        method: "POST",
        cookie: alice,
        headers: { "content-type": "text/csv" },
        body,
      }),
      422,
    );
    expect(refused.error.code).toBe("invalid_import");
    expect(refused.error.details).toEqual([
      { path: "row 3", message: "question is empty" },
      { path: "row 4", message: "answer is empty" },
      { path: "row 5", message: "repeats the question of row 2" },
      { path: "row 7", message: "answer is 32001 characters; at most 32000" },
    ]);
    const none = await json<{ data: unknown[] }>(
      await builder.request(`/api/agents/${agentId}/annotations`, { cookie: alice }),
      200,
    );
    expect(none.data).toEqual([]);

    const noHeader = await json<{ error: { code: string; details: { path: string }[] } }>(
      await builder.request(`/api/agents/${agentId}/annotations/import`, {
        method: "POST",
        cookie: alice,
        headers: { "content-type": "text/csv" },
        body: "Fine?,Yes.\r\n",
      }),
      422,
    );
    expect(noHeader.error.details[0]?.path).toBe("row 1");

    const notUtf8 = await builder.request(`/api/agents/${agentId}/annotations/import`, {
      method: "POST",
      cookie: alice,
      headers: { "content-type": "text/csv" },
      body: new Uint8Array([0x71, 0x2c, 0x61, 0x0d, 0x0a, 0xff, 0x2c, 0x61]),
    });
    expect(notUtf8.status).toBe(400);
    const json415 = await builder.request(`/api/agents/${agentId}/annotations/import`, {
      method: "POST",
      cookie: alice,
      json: { question: "q", answer: "a" },
    });
    expect(json415.status).toBe(415);
  });
});
