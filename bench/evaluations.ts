// npm run bench -- evaluations [--rows 100] [--db pglite|postgres]
// Wall time of a background evaluation (an agent on a dataset, three evaluators: exact, contains and
// llm_judge) against a fake provider that answers instantly, next to the same model calls (one
// answer and one judgement per row) made directly with the AI SDK at the worker's concurrency (4).
// The difference is what the builder adds: claiming rows, the chat turn's bookkeeping (conversation,
// usage, credits), scoring and storing each row.
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { freePort, lastUserText, startFakeOpenAI } from "@app/testing";
import { generateText } from "ai";
import { benchDatabase, benchUser, option, printTable, startService, temporaryDataDir } from "./lib.ts";

const rows = Number(option("rows", "100"));
const dbKind = option("db", "pglite");
const CONCURRENCY = 4;

const fake = await startFakeOpenAI({
  script: (turn) =>
    turn.messages.some((message) => message.role === "system" && message.text.includes("You grade"))
      ? { text: '{"score": 0.75, "reason": "close enough"}' }
      : { text: `The answer to ${lastUserText(turn)} is 42.` },
});
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const env: Record<string, string> = {
  PORT: String(port),
  DATA_DIR: temporaryDataDir("bench-evaluations"),
  PUBLIC_URL: base,
  ALLOW_PRIVATE_URLS: "1",
};
const database = await benchDatabase(dbKind, 1);
Object.assign(env, database.env);

const builder = await startService("apps/builder/src/server.ts", env, `${base}/healthz`);
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
  const agent = await post("/api/agents", {
    name: "Bench",
    provider: "openai-compatible",
    model: "bench-model",
    instructions: "Be brief.",
  });
  const questions = Array.from({ length: rows }, (_, index) => `question ${index + 1}`);
  const dataset = await post("/api/datasets", {
    name: "Bench",
    rows: questions.map((input) => ({ input, expected: "42" })),
  });

  // Baseline: the same calls straight to the provider, four at a time.
  const direct = createOpenAICompatible({ name: "bench", baseURL: fake.baseUrl, apiKey: "sk-bench" });
  const baselineStart = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < questions.length) {
        const question = questions[next++] ?? "";
        const answer = await generateText({
          model: direct("bench-model"),
          system: "Be brief.",
          prompt: question,
          maxRetries: 0,
        });
        await generateText({
          model: direct("judge-model"),
          system: "You grade an answer.",
          prompt: `${question}\n${answer.text}`,
          maxRetries: 0,
        });
      }
    }),
  );
  const baselineMs = performance.now() - baselineStart;

  const started = performance.now();
  const evaluation = await post("/api/evaluations", {
    target: { agent_id: agent.id },
    dataset_id: dataset.id,
    evaluators: [
      { type: "exact" },
      { type: "contains" },
      { type: "llm_judge", rubric: "Is the answer 42?", provider: "openai-compatible", model: "judge-model" },
    ],
  });
  let result: { status: string; rows_done: number; mean_score: number; mean_latency_ms: number } | undefined;
  for (;;) {
    const response = await fetch(`${base}/api/evaluations/${evaluation.id}`, { headers: auth });
    result = (await response.json()) as typeof result;
    if (result?.status !== "running") break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const evaluationMs = performance.now() - started;
  if (result?.rows_done !== rows)
    throw new Error(`evaluation ended ${result?.status} with ${result?.rows_done} rows`);

  console.log(
    `\nevaluations benchmark: ${rows} rows, 3 evaluators (exact, contains, llm_judge), concurrency ${CONCURRENCY}, database ${dbKind}, fake provider answering at once\n`,
  );
  printTable(
    ["case", "rows", "wall ms", "rows/s", "mean score"],
    [
      [
        "AI SDK direct: answer + judge per row (baseline)",
        rows,
        Math.round(baselineMs),
        (rows / (baselineMs / 1000)).toFixed(1),
        "—",
      ],
      [
        "builder evaluation (202, background, stored per row)",
        rows,
        Math.round(evaluationMs),
        (rows / (evaluationMs / 1000)).toFixed(1),
        result.mean_score,
      ],
    ],
  );
  console.log(`\ntarget: under 120000 ms → ${evaluationMs < 120_000 ? "met" : "NOT met"}`);
} finally {
  await builder.stop();
  await fake.close();
  await database.drop();
}
