import { type FakeProvider, type FakeTurn, lastUserText, startFakeOpenAI } from "@app/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestBuilder, type TestBuilder } from "../../test/harness.ts";

let builder: TestBuilder;
let openai: FakeProvider;
let alice: string;
let bob: string;
let agentId: string;
/** Questions the fake holds without answering until released (the restart test). */
const held = new Set<string>();

const ANSWERS: Record<string, string> = {
  "What is 2+2?": "4",
  "Capital of France?": "Paris is the capital of France.",
  "Give me a person as JSON": '{"name": "Ana", "age": 3}',
  "How many legs does a spider have?": "A spider has 8 legs.",
};

function isJudge(turn: FakeTurn): boolean {
  return turn.messages.some((message) => message.role === "system" && message.text.includes("You grade"));
}

function script(turn: FakeTurn) {
  if (isJudge(turn)) {
    const text = lastUserText(turn);
    // The judge likes answers that mention Paris.
    return {
      text: text.includes("Paris")
        ? '```json\n{"score": 0.9, "reason": "correct city"}\n```'
        : "Score: 2/10, wrong.",
    };
  }
  const question = lastUserText(turn);
  if (held.has(question)) return { hang: true as const };
  const isSecondVersion = turn.messages.some(
    (message) => message.role === "system" && message.text.includes("v2"),
  );
  if (isSecondVersion && question === "What is 2+2?") return { text: "5" };
  return { text: ANSWERS[question] ?? `I do not know: ${question}` };
}

beforeAll(async () => {
  openai = await startFakeOpenAI({ apiKey: "sk-eval" });
  openai.script = script;
  builder = await startTestBuilder({
    env: { ALLOW_PRIVATE_URLS: "1" },
    deps: { evaluations: { concurrency: 1, minIdleMs: 20, maxIdleMs: 100 } },
  });
  alice = (await builder.signUp()).cookie;
  bob = (await builder.signUp()).cookie;
  for (const cookie of [alice, bob]) {
    const credential = await builder.request("/api/credentials", {
      method: "POST",
      cookie,
      json: { provider: "openai-compatible", api_key: "sk-eval", base_url: openai.baseUrl },
    });
    expect(credential.status, await credential.clone().text()).toBe(201);
  }
  agentId = await createAgent(alice, "v1: answer briefly.");
});

afterAll(async () => {
  await builder?.stop();
  await openai?.close();
});

async function createAgent(cookie: string, instructions: string): Promise<string> {
  const response = await builder.request("/api/agents", {
    method: "POST",
    cookie,
    json: { name: "Quiz", provider: "openai-compatible", model: "fake-model", instructions },
  });
  expect(response.status, await response.clone().text()).toBe(201);
  return ((await response.json()) as { id: string }).id;
}

async function post(path: string, cookie: string, json: unknown) {
  return builder.request(path, { method: "POST", cookie, json });
}

async function createDataset(cookie: string, rows: unknown[], name = "Quiz"): Promise<string> {
  const response = await post("/api/datasets", cookie, { name, rows });
  expect(response.status, await response.clone().text()).toBe(201);
  return ((await response.json()) as { id: string }).id;
}

interface EvaluationJson {
  id: string;
  status: string;
  rows_total: number;
  rows_done: number;
  mean_score: number | null;
  mean_by_evaluator: Record<string, number>;
  credits: number;
  rows: {
    position: number;
    status: string;
    output: string | null;
    error: string | null;
    score: number | null;
    latency_ms: number | null;
    scores: { evaluator: string; score: number; passed: boolean; reason: string | null }[];
  }[];
}

async function getEvaluation(id: string, cookie = alice): Promise<EvaluationJson> {
  const response = await builder.request(`/api/evaluations/${id}`, { cookie });
  expect(response.status, await response.clone().text()).toBe(200);
  return (await response.json()) as EvaluationJson;
}

/** Reads the evaluation until `isDone` holds (the worker runs in the background). */
async function waitFor(id: string, isDone: (evaluation: EvaluationJson) => boolean): Promise<EvaluationJson> {
  for (let round = 0; round < 600; round += 1) {
    const evaluation = await getEvaluation(id);
    if (isDone(evaluation)) return evaluation;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`evaluation ${id} did not get there`);
}

const finished = (evaluation: EvaluationJson) => evaluation.status !== "running";

async function evaluate(body: Record<string, unknown>, cookie = alice): Promise<string> {
  const response = await post("/api/evaluations", cookie, body);
  expect(response.status, await response.clone().text()).toBe(202);
  const started = (await response.json()) as EvaluationJson;
  expect(started.status).toBe("running");
  return started.id;
}

describe("datasets", () => {
  it("are created from rows, listed a page at a time, read with their rows and deleted", async () => {
    const first = await createDataset(
      alice,
      [{ input: "What is 2+2?", expected: "4" }, { inputs: { city: "Oslo" } }],
      "One",
    );
    const second = await createDataset(alice, [{ input: "Hi" }], "Two");
    const page = await builder.request("/api/datasets?limit=1", { cookie: alice });
    const body = (await page.json()) as { data: { id: string }[]; has_more: boolean; next_cursor: string };
    expect(body.data.map((row) => row.id)).toEqual([second]);
    expect(body.has_more).toBe(true);
    const next = (await (
      await builder.request(`/api/datasets?limit=1&cursor=${body.next_cursor}`, { cookie: alice })
    ).json()) as {
      data: { id: string }[];
    };
    expect(next.data.map((row) => row.id)).toEqual([first]);
    const one = (await (await builder.request(`/api/datasets/${first}`, { cookie: alice })).json()) as {
      row_count: number;
      rows: unknown[];
    };
    expect(one.row_count).toBe(2);
    expect(one.rows).toEqual([
      { position: 1, input: "What is 2+2?", inputs: null, expected: "4" },
      { position: 2, input: null, inputs: { city: "Oslo" }, expected: null },
    ]);
    expect((await builder.request(`/api/datasets/${first}`, { cookie: bob })).status).toBe(404);
    expect((await builder.request(`/api/datasets/${first}`, { method: "DELETE", cookie: bob })).status).toBe(
      404,
    );
    expect(
      (await builder.request(`/api/datasets/${second}`, { method: "DELETE", cookie: alice })).status,
    ).toBe(204);
    expect((await builder.request(`/api/datasets/${second}`, { cookie: alice })).status).toBe(404);
  });

  it("refuses rows with neither or both of input and inputs, and more rows than the limit", async () => {
    for (const rows of [
      [{ expected: "x" }],
      [{ input: "a", inputs: {} }],
      Array.from({ length: 1001 }, () => ({ input: "a" })),
    ]) {
      const response = await post("/api/datasets", alice, { name: "Bad", rows });
      expect(response.status).toBe(422);
    }
    expect((await post("/api/datasets", alice, { name: "Bad", rows: [], extra: 1 })).status).toBe(422);
  });

  it("import CSV rows after the existing ones, and refuse a bad file naming each bad line", async () => {
    const id = await createDataset(alice, [{ input: "first" }]);
    const csv = 'input,expected\n"Hello, world","Hi ""there"""\n"multi\nline",\nこんにちは,やあ\n';
    const response = await post(`/api/datasets/${id}/rows/import`, alice, { csv });
    expect(response.status, await response.clone().text()).toBe(200);
    expect(await response.json()).toEqual({ imported: 3, row_count: 4 });
    const rows = (
      (await (await builder.request(`/api/datasets/${id}`, { cookie: alice })).json()) as { rows: unknown[] }
    ).rows;
    expect(rows.slice(1)).toEqual([
      { position: 2, input: "Hello, world", inputs: null, expected: 'Hi "there"' },
      { position: 3, input: "multi\nline", inputs: null, expected: null },
      { position: 4, input: "こんにちは", inputs: null, expected: "やあ" },
    ]);
    const bad = await post(`/api/datasets/${id}/rows/import`, alice, { csv: "input,expected\nok,1\n,2\n" });
    expect(bad.status).toBe(422);
    const error = (
      (await bad.json()) as { error: { code: string; details: { path: string; message: string }[] } }
    ).error;
    expect(error.code).toBe("invalid_csv");
    expect(error.details).toEqual([{ path: "line 3", message: "input is empty", code: "empty_input" }]);
    const noHeader = await post(`/api/datasets/${id}/rows/import`, alice, { csv: "question\nhi\n" });
    expect(noHeader.status).toBe(422);
    expect((await post(`/api/datasets/${id}/rows/import`, bob, { csv: "input\nhi\n" })).status).toBe(404);
  });

  it("are built from the workspace's messages: the question as input, the answer as expected; another's message is 404", async () => {
    const chat = await post(`/api/agents/${agentId}/chat`, alice, { message: "Capital of France?" });
    expect(chat.status).toBe(200);
    const { conversation_id: conversationId, message } = (await chat.json()) as {
      conversation_id: string;
      message: { id: string };
    };
    const messages = (await (
      await builder.request(`/api/conversations/${conversationId}/messages`, { cookie: alice })
    ).json()) as {
      data: { id: string; role: string }[];
    };
    const question = messages.data.find((row) => row.role === "user")?.id ?? "";
    for (const ids of [[question], [message.id]]) {
      const response = await post("/api/datasets", alice, { name: "From logs", from_messages: ids });
      expect(response.status, await response.clone().text()).toBe(201);
      const id = ((await response.json()) as { id: string }).id;
      const dataset = (await (await builder.request(`/api/datasets/${id}`, { cookie: alice })).json()) as {
        rows: unknown[];
      };
      expect(dataset.rows).toEqual([
        {
          position: 1,
          input: "Capital of France?",
          inputs: null,
          expected: "Paris is the capital of France.",
        },
      ]);
    }
    const foreign = await post("/api/datasets", bob, { name: "Stolen", from_messages: [question] });
    expect(foreign.status).toBe(404);
    expect(((await foreign.json()) as { error: { param: string } }).error.param).toBe("from_messages.0");
  });
});

describe("evaluations", () => {
  it("score each row with exact, contains, regex, json_schema and numeric, and average them", async () => {
    const dataset = await createDataset(alice, [
      { input: "What is 2+2?", expected: "4" },
      { input: "Capital of France?", expected: "paris" },
      { input: "Give me a person as JSON", expected: "3" },
      { input: "How many legs does a spider have?", expected: "8.4" },
    ]);
    const id = await evaluate({
      target: { agent_id: agentId, version: "draft" },
      dataset_id: dataset,
      evaluators: [
        { type: "exact" },
        { type: "contains" },
        { type: "regex", pattern: "^\\d+$" },
        {
          type: "json_schema",
          schema: {
            type: "object",
            properties: { name: { type: "string" }, age: { type: "number" } },
            required: ["name"],
          },
        },
        { type: "numeric", tolerance: 0.5 },
      ],
    });
    const evaluation = await waitFor(id, finished);
    expect(evaluation.status).toBe("succeeded");
    expect(evaluation.rows_done).toBe(4);
    const passed = evaluation.rows.map((row) => row.scores.map((score) => (score.passed ? 1 : 0)));
    expect(passed).toEqual([
      [1, 1, 1, 0, 1], // "4" is JSON, but not an object
      [0, 1, 0, 0, 0],
      [0, 1, 0, 1, 1], // the first number of the JSON is the age, 3
      [0, 0, 0, 0, 1], // 8 is within 0.5 of 8.4
    ]);
    expect(evaluation.rows.map((row) => row.output)).toEqual([
      "4",
      "Paris is the capital of France.",
      '{"name": "Ana", "age": 3}',
      "A spider has 8 legs.",
    ]);
    expect(evaluation.mean_by_evaluator).toEqual({
      exact: 0.25,
      contains: 0.75,
      regex: 0.25,
      json_schema: 0.25,
      numeric: 0.75,
    });
    expect(evaluation.mean_score).toBeCloseTo((0.8 + 0.2 + 0.6 + 0.2) / 4, 4);
    expect(evaluation.rows.every((row) => row.latency_ms !== null)).toBe(true);
  });

  it("score similarity by embedding cosine against a threshold, and llm_judge by the judge's score and reason", async () => {
    const dataset = await createDataset(alice, [
      { input: "Capital of France?", expected: "Paris is the capital of France." },
      { input: "What is 2+2?", expected: "The answer is four, a small even number." },
    ]);
    const id = await evaluate({
      target: { agent_id: agentId },
      dataset_id: dataset,
      evaluators: [
        { type: "similarity", threshold: 0.9 },
        {
          type: "llm_judge",
          rubric: "Is the city right?",
          provider: "openai-compatible",
          model: "judge-model",
        },
      ],
    });
    const evaluation = await waitFor(id, finished);
    const [paris, four] = evaluation.rows;
    expect(paris?.scores).toEqual([
      { evaluator: "similarity", score: 1, passed: true, reason: "cosine 1" },
      { evaluator: "llm_judge", score: 0.9, passed: true, reason: "correct city" },
    ]);
    expect(four?.scores[0]?.passed).toBe(false);
    expect(four?.scores[0]?.score).toBeLessThan(0.9);
    expect(four?.scores[1]).toEqual({
      evaluator: "llm_judge",
      score: 0.2,
      passed: false,
      reason: "Score: 2/10, wrong.",
    });
    const judged = openai.turns.filter((turn) => isJudge(turn) && turn.model === "judge-model");
    expect(judged.length).toBe(2);
    expect(judged[0]?.messages.find((message) => message.role === "user")?.text).toContain(
      "Is the city right?",
    );
  });

  it("survive a restart midway: finished rows stay, the rest resume, none is counted twice", async () => {
    const questions = [
      "What is 2+2?",
      "Capital of France?",
      "How many legs does a spider have?",
      "Give me a person as JSON",
    ];
    held.add("How many legs does a spider have?");
    const dataset = await createDataset(
      alice,
      questions.map((input) => ({ input })),
    );
    const before = openai.turns.length;
    const id = await evaluate({
      target: { agent_id: agentId },
      dataset_id: dataset,
      evaluators: [{ type: "contains", value: "a" }],
    });
    // Concurrency 1: two rows finish, the third hangs at the provider.
    await waitFor(id, (evaluation) => evaluation.rows_done === 2);
    while (
      !openai.turns.slice(before).some((turn) => lastUserText(turn) === "How many legs does a spider have?")
    ) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await builder.restart(async () => {
      const stopped = await getEvaluationFromDb(id);
      expect(stopped.filter((status) => status === "succeeded").length).toBe(2);
      expect(stopped.filter((status) => status === "running").length).toBe(0);
      held.clear();
    });
    while ((await getEvaluationFromDb(id)).some((status) => status !== "succeeded")) {
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    const evaluation = await getEvaluation(id);
    expect(evaluation.status).toBe("succeeded");
    expect(evaluation.rows_done).toBe(4);
    expect(evaluation.rows.map((row) => row.status)).toEqual([
      "succeeded",
      "succeeded",
      "succeeded",
      "succeeded",
    ]);
    const asked = openai.turns.slice(before).map(lastUserText);
    expect(questions.map((question) => asked.filter((text) => text === question).length)).toEqual([
      1, 1, 2, 1,
    ]);
  });

  it("compare two versions row by row with what changed", async () => {
    const dataset = await createDataset(alice, [
      { input: "What is 2+2?", expected: "4" },
      { input: "Capital of France?", expected: "Paris is the capital of France." },
    ]);
    const published = await post(`/api/agents/${agentId}/versions`, alice, { notes: "v1" });
    expect(published.status).toBe(201);
    const patched = await builder.request(`/api/agents/${agentId}`, {
      method: "PATCH",
      cookie: alice,
      json: { instructions: "v2: answer briefly." },
    });
    expect(patched.status, await patched.clone().text()).toBe(200);
    const a = await evaluate({
      target: { agent_id: agentId, version: 1 },
      dataset_id: dataset,
      evaluators: [{ type: "exact" }],
    });
    const b = await evaluate({
      target: { agent_id: agentId, version: "draft" },
      dataset_id: dataset,
      evaluators: [{ type: "exact" }],
    });
    await waitFor(a, finished);
    await waitFor(b, finished);
    const response = await builder.request(`/api/evaluations/compare?a=${a}&b=${b}`, { cookie: alice });
    expect(response.status, await response.clone().text()).toBe(200);
    const comparison = (await response.json()) as {
      mean_delta: number;
      a: { target: { version: number | string } };
      b: { target: { version: number | string } };
      rows: {
        position: number;
        change: string;
        score_delta: number;
        a: { output: string };
        b: { output: string };
      }[];
    };
    expect(comparison.a.target.version).toBe(1);
    expect(comparison.b.target.version).toBe("draft");
    expect(comparison.mean_delta).toBe(-0.5);
    expect(
      comparison.rows.map((row) => [row.position, row.change, row.score_delta, row.a.output, row.b.output]),
    ).toEqual([
      [1, "regressed", -1, "4", "5"],
      [2, "unchanged", 0, "Paris is the capital of France.", "Paris is the capital of France."],
    ]);
    const listed = (await (
      await builder.request(`/api/evaluations?target_id=${agentId}&limit=2`, { cookie: alice })
    ).json()) as {
      data: { id: string }[];
    };
    expect(listed.data.map((row) => row.id)).toEqual([b, a]);
  });

  it("keep each workspace's datasets and evaluations to itself", async () => {
    const dataset = await createDataset(alice, [{ input: "What is 2+2?", expected: "4" }]);
    const id = await evaluate({
      target: { agent_id: agentId },
      dataset_id: dataset,
      evaluators: [{ type: "exact" }],
    });
    await waitFor(id, finished);
    expect((await builder.request(`/api/evaluations/${id}`, { cookie: bob })).status).toBe(404);
    expect((await builder.request(`/api/evaluations/compare?a=${id}&b=${id}`, { cookie: bob })).status).toBe(
      404,
    );
    const bobAgent = await createAgent(bob, "Bob's");
    const withAlicesDataset = await post("/api/evaluations", bob, {
      target: { agent_id: bobAgent },
      dataset_id: dataset,
      evaluators: [{ type: "exact" }],
    });
    expect(withAlicesDataset.status).toBe(404);
    expect(((await withAlicesDataset.json()) as { error: { code: string } }).error.code).toBe(
      "dataset_not_found",
    );
    const withAlicesAgent = await post("/api/evaluations", bob, {
      target: { agent_id: agentId },
      dataset_id: dataset,
      evaluators: [{ type: "exact" }],
    });
    expect(withAlicesAgent.status).toBe(404);
    const listed = (await (await builder.request("/api/evaluations", { cookie: bob })).json()) as {
      data: unknown[];
    };
    expect(listed.data).toEqual([]);
  });

  it("refuse bad evaluators and targets with 422 naming the field", async () => {
    const dataset = await createDataset(alice, [{ input: "hi" }]);
    const cases: [Record<string, unknown>, string][] = [
      [
        {
          target: { agent_id: agentId },
          dataset_id: dataset,
          evaluators: [{ type: "regex", pattern: "(a+)+$" }],
        },
        "evaluators[0].pattern",
      ],
      [{ target: { agent_id: agentId }, dataset_id: dataset, evaluators: [] }, "evaluators"],
      [
        { target: { agent_id: agentId }, dataset_id: dataset, evaluators: [{ type: "bleu" }] },
        "evaluators[0].type",
      ],
      [
        {
          target: { agent_id: agentId, workflow_id: "wf_x" },
          dataset_id: dataset,
          evaluators: [{ type: "exact" }],
        },
        "target",
      ],
      [
        {
          target: { agent_id: agentId },
          dataset_id: dataset,
          evaluators: [{ type: "similarity", threshold: 2 }],
        },
        "evaluators[0].threshold",
      ],
    ];
    for (const [body, param] of cases) {
      const response = await post("/api/evaluations", alice, body);
      expect(response.status, JSON.stringify(body)).toBe(422);
      const error = ((await response.json()) as { error: { param?: string; details?: { path: string }[] } })
        .error;
      expect([error.param, ...(error.details ?? []).map((detail) => detail.path)]).toContain(param);
    }
    const missingVersion = await post("/api/evaluations", alice, {
      target: { agent_id: agentId, version: 99 },
      dataset_id: dataset,
      evaluators: [{ type: "exact" }],
    });
    expect(missingVersion.status).toBe(404);
  });
});

async function getEvaluationFromDb(id: string): Promise<string[]> {
  const { evaluationResults } = await import("./schema.ts");
  const { eq } = await import("drizzle-orm");
  const rows = await builder.deps.db
    .select({ status: evaluationResults.status })
    .from(evaluationResults)
    .where(eq(evaluationResults.evaluationId, id));
  return rows.map((row) => row.status);
}

describe("evaluations of a workflow", () => {
  it("run each row's inputs through the workflow and score its output; the publish gate applies to workflows too", async () => {
    const created = await post("/api/workflows", alice, {
      name: "Greeter",
      graph: {
        nodes: [
          {
            id: "start",
            type: "start",
            position: { x: 0, y: 0 },
            data: { inputs: [{ name: "name", type: "string", required: true }] },
          },
          {
            id: "done",
            type: "end",
            position: { x: 0, y: 0 },
            data: { outputs: [{ name: "answer", value: "Hello, {{start.name}}!" }] },
          },
        ],
        edges: [{ id: "e", source: "start", target: "done" }],
      },
    });
    expect(created.status, await created.clone().text()).toBe(201);
    const workflowId = ((await created.json()) as { id: string }).id;
    const dataset = await createDataset(alice, [
      { inputs: { name: "Ana" }, expected: "Hello, Ana!" },
      { inputs: { name: "Budi" }, expected: "Hi, Budi" },
      { inputs: {}, expected: "Hello" },
    ]);
    const id = await evaluate({
      target: { workflow_id: workflowId },
      dataset_id: dataset,
      evaluators: [{ type: "exact" }],
    });
    const evaluation = await waitFor(id, finished);
    expect(evaluation.rows.map((row) => [row.status, row.output, row.score])).toEqual([
      ["succeeded", "Hello, Ana!", 1],
      ["succeeded", "Hello, Budi!", 0],
      ["failed", null, 0],
    ]);
    expect(evaluation.rows[2]?.error).toContain("invalid_inputs");
    expect(evaluation.mean_score).toBeCloseTo(1 / 3, 4);

    const gate = { dataset_id: dataset, evaluators: [{ type: "exact" }], min_score: 0.5 };
    const set = await builder.request(`/api/workflows/${workflowId}`, {
      method: "PATCH",
      cookie: alice,
      json: { evaluation_gate: gate },
    });
    expect(set.status, await set.clone().text()).toBe(200);
    const refused = await post(`/api/workflows/${workflowId}/versions`, alice, {});
    expect(refused.status).toBe(409);
    const forced = await post(`/api/workflows/${workflowId}/versions`, alice, { force: true });
    expect(forced.status).toBe(201);
    expect(((await forced.json()) as { evaluation_gate: unknown }).evaluation_gate).toMatchObject({
      is_skipped: true,
    });
  });
});

describe("the publish gate", () => {
  it("evaluates the draft before publishing: passes above min_score, refuses under it with 409, and force publishes anyway", async () => {
    const gated = await createAgent(alice, "v1: answer briefly.");
    const dataset = await createDataset(alice, [
      { input: "What is 2+2?", expected: "4" },
      { input: "Capital of France?", expected: "Paris is the capital of France." },
    ]);
    const gate = { dataset_id: dataset, evaluators: [{ type: "exact" }], min_score: 0.9 };
    const set = await builder.request(`/api/agents/${gated}`, {
      method: "PATCH",
      cookie: alice,
      json: { evaluation_gate: gate },
    });
    expect(set.status, await set.clone().text()).toBe(200);
    expect(((await set.json()) as { evaluation_gate: unknown }).evaluation_gate).toMatchObject({
      min_score: 0.9,
    });

    const first = await post(`/api/agents/${gated}/versions`, alice, { notes: "good" });
    expect(first.status, await first.clone().text()).toBe(201);
    const passed = (
      (await first.json()) as {
        evaluation_gate: { evaluation_id: string; mean_score: number; is_skipped: boolean };
      }
    ).evaluation_gate;
    expect(passed).toMatchObject({ mean_score: 1, min_score: 0.9, is_skipped: false });
    expect((await getEvaluation(passed.evaluation_id)).status).toBe("succeeded");

    await builder.request(`/api/agents/${gated}`, {
      method: "PATCH",
      cookie: alice,
      json: { instructions: "v2: answer briefly." },
    });
    const refused = await post(`/api/agents/${gated}/versions`, alice, { notes: "worse" });
    expect(refused.status).toBe(409);
    const error = (
      (await refused.json()) as { error: { code: string; details: { path: string; message: string }[] } }
    ).error;
    expect(error.code).toBe("evaluation_gate_failed");
    const details = Object.fromEntries(error.details.map((detail) => [detail.path, detail.message]));
    expect(details).toMatchObject({ mean_score: "0.5", min_score: "0.9", "scores.exact": "0.5" });
    const failed = await getEvaluation(details.evaluation_id ?? "");
    expect(failed.rows.map((row) => row.output)).toEqual(["5", "Paris is the capital of France."]);
    const versions = (await (
      await builder.request(`/api/agents/${gated}/versions`, { cookie: alice })
    ).json()) as {
      data: unknown[];
    };
    expect(versions.data.length).toBe(1);

    const forced = await post(`/api/agents/${gated}/versions`, alice, { notes: "ship it", force: true });
    expect(forced.status).toBe(201);
    expect(await forced.json()).toMatchObject({
      version: 2,
      evaluation_gate: { evaluation_id: null, mean_score: null, min_score: 0.9, is_skipped: true },
    });
  });

  it("takes only a dataset of the workspace", async () => {
    const bobsDataset = await createDataset(bob, [{ input: "hi" }]);
    const response = await post("/api/agents", alice, {
      name: "Gated",
      provider: "openai-compatible",
      model: "fake-model",
      evaluation_gate: { dataset_id: bobsDataset, evaluators: [{ type: "exact" }], min_score: 0.5 },
    });
    expect(response.status).toBe(422);
    const error = ((await response.json()) as { error: { details: { path: string }[] } }).error;
    expect(error.details.map((detail) => detail.path)).toEqual(["evaluation_gate.dataset_id"]);
  });
});
