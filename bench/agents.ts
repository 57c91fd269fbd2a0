// npm run bench -- agents [--turns 200] [--db pglite|postgres] [--processes 1]
// Time to first streamed token and total time of an agent chat turn (no tools) through the builder,
// next to the AI SDK called directly against the same fake provider, which answers instantly.
// The difference is what the builder adds per turn: auth, agent and key lookup, decryption,
// conversation and memory reads, persisting the turn and recording usage.
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { freePort, startFakeOpenAI } from "@app/testing";
import { streamText } from "ai";
import { benchDatabase, option, printTable, startService, temporaryDataDir } from "./lib.ts";

const turns = Number(option("turns", "200"));
const warmup = Math.max(10, Math.floor(turns / 10));
const dbKind = option("db", "pglite");
const processes = Number(option("processes", "1"));
const ANSWER = "The quick brown fox jumps over the lazy dog, twice, and then rests.";

const fake = await startFakeOpenAI({ script: () => ({ text: ANSWER }) });
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const env: Record<string, string> = {
  PORT: String(port),
  DATA_DIR: temporaryDataDir("bench-agents"),
  PUBLIC_URL: base,
  ALLOW_PRIVATE_URLS: "1",
};
const database = await benchDatabase(dbKind, processes);
Object.assign(env, database.env);

interface Sample {
  firstTokenMs: number;
  totalMs: number;
}

/** Reads a streamed answer, noting when the first text delta arrived and when the stream ended. */
async function timeStream(start: number, response: Response, marker: string): Promise<Sample> {
  if (!response.body) throw new Error(`no body (status ${response.status})`);
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let seen = "";
  let firstTokenMs = Number.NaN;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (Number.isNaN(firstTokenMs)) {
      seen += decoder.decode(value, { stream: true });
      if (seen.includes(marker)) firstTokenMs = performance.now() - start;
    }
  }
  if (Number.isNaN(firstTokenMs)) throw new Error(`no ${marker} in the stream: ${seen.slice(0, 300)}`);
  return { firstTokenMs, totalMs: performance.now() - start };
}

interface Case {
  name: string;
  run: () => Promise<Sample>;
  samples: Sample[];
}

function turnCase(name: string, run: () => Promise<Sample>): Case {
  return { name, run, samples: [] };
}

/**
 * Runs the cases in rounds, one turn of each per round, so a machine that speeds up or slows down
 * during the run (a shared VM does) moves the baseline and the builder alike.
 */
async function measureInRounds(cases: Case[]): Promise<void> {
  for (let i = 0; i < warmup; i++) for (const each of cases) await each.run();
  for (let i = 0; i < turns; i++) for (const each of cases) each.samples.push(await each.run());
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

const builder = await startService("apps/builder/src/server.ts", env, `${base}/healthz`);
try {
  const json = { "content-type": "application/json", origin: base };
  const signUp = await fetch(`${base}/api/auth/sign-up/email`, {
    method: "POST",
    headers: json,
    body: JSON.stringify({ email: "bench@example.com", password: "benchmark-password", name: "Bench" }),
  });
  const cookie = signUp.headers.getSetCookie()[0]?.split(";")[0] ?? "";
  const { key } = (await (
    await fetch(`${base}/api/keys`, {
      method: "POST",
      headers: { ...json, cookie },
      body: JSON.stringify({ name: "bench" }),
    })
  ).json()) as { key: string };
  const auth = { "content-type": "application/json", authorization: `Bearer ${key}` };
  await fetch(`${base}/api/credentials`, {
    method: "POST",
    headers: auth,
    body: JSON.stringify({ provider: "openai-compatible", api_key: "sk-bench", base_url: fake.baseUrl }),
  });
  const agent = (await (
    await fetch(`${base}/api/agents`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({
        name: "Bench",
        provider: "openai-compatible",
        model: "bench-model",
        instructions: "Be brief.",
      }),
    })
  ).json()) as { id: string };

  const direct = createOpenAICompatible({
    name: "bench",
    baseURL: fake.baseUrl,
    apiKey: "sk-bench",
    includeUsage: true,
  });
  const baseline = turnCase("AI SDK streamText direct (baseline)", async () => {
    const start = performance.now();
    const result = streamText({
      model: direct("bench-model"),
      system: "Be brief.",
      prompt: "Hello",
      maxRetries: 0,
    });
    let firstTokenMs = Number.NaN;
    for await (const part of result.fullStream) {
      if (part.type === "text-delta" && Number.isNaN(firstTokenMs)) firstTokenMs = performance.now() - start;
    }
    return { firstTokenMs, totalMs: performance.now() - start };
  });

  const chatUrl = `${base}/api/agents/${agent.id}/chat`;
  const newConversation = turnCase("builder SSE, new conversation", async () => {
    const start = performance.now();
    const response = await fetch(chatUrl, {
      method: "POST",
      headers: { ...auth, accept: "text/event-stream" },
      body: JSON.stringify({ message: "Hello" }),
    });
    return timeStream(start, response, "event: text_delta");
  });

  const first = (await (
    await fetch(chatUrl, { method: "POST", headers: auth, body: JSON.stringify({ message: "Hello" }) })
  ).json()) as { conversation_id: string };
  const continued = turnCase("builder SSE, continued conversation (10-turn memory)", async () => {
    const start = performance.now();
    const response = await fetch(chatUrl, {
      method: "POST",
      headers: { ...auth, accept: "text/event-stream" },
      body: JSON.stringify({ message: "Hello", conversation_id: first.conversation_id }),
    });
    return timeStream(start, response, "event: text_delta");
  });

  const jsonTurn = turnCase("builder JSON answer, new conversation", async () => {
    const start = performance.now();
    const response = await fetch(chatUrl, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ message: "Hello" }),
    });
    await response.arrayBuffer();
    const totalMs = performance.now() - start;
    return { firstTokenMs: totalMs, totalMs };
  });

  await measureInRounds([baseline, newConversation, continued, jsonTurn]);
  const baseFirst = percentile(
    baseline.samples.map((s) => s.firstTokenMs),
    50,
  );
  const baseTotal = percentile(
    baseline.samples.map((s) => s.totalMs),
    50,
  );
  console.log(
    `\nagents benchmark: ${turns} rounds of one sequential turn per case after ${warmup} warm-up rounds, database ${dbKind}, ${processes} builder process(es), no tools\n`,
  );
  printTable(
    [
      "case",
      "first token p50 ms",
      "first token p99 ms",
      "total p50 ms",
      "total p99 ms",
      "added p50 ms (first token)",
      "added p50 ms (total)",
    ],
    [baseline, newConversation, continued, jsonTurn].map((result) => {
      const first = result.samples.map((s) => s.firstTokenMs);
      const total = result.samples.map((s) => s.totalMs);
      const isJson = result === jsonTurn;
      return [
        result.name,
        isJson ? "—" : percentile(first, 50),
        isJson ? "—" : percentile(first, 99),
        percentile(total, 50),
        percentile(total, 99),
        isJson || result === baseline ? "—" : percentile(first, 50) - baseFirst,
        result === baseline ? "—" : percentile(total, 50) - baseTotal,
      ];
    }),
  );
  console.log("\nTarget: ≤ 5 ms added p50 per turn without tools.");
} finally {
  await builder.stop();
  await fake.close();
  await database.drop();
}
