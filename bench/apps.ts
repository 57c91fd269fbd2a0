// npm run bench -- apps [--users 200] [--db pglite|postgres]
// An app's end users at once: every user streams one chat turn through the public API
// (/api/public/apps/{slug}/chat, SSE) against a fake provider on loopback that answers at once.
// Baseline: the same number of streams opened straight at the fake with the AI SDK, at once, in the
// same run; the builder's figure minus the baseline's is what the builder adds (the issue's "time to
// the first text_delta minus the fake's own delay"). The builder's RSS is sampled during the run.
// Two arrivals: a burst (every request sent in the same millisecond: the worst case, a queue the
// builder drains at its per-turn cost) and paced (the same users' turns spread evenly over
// --spread seconds, as real users' messages arrive). The builder's CPU time per turn (from /proc) is
// the figure that does not depend on the machine's other load: a burst's p95 is about users × that.
// The widget's figures (bytes until usable, click-to-usable) come from bench/apps-widget.ts.
import { existsSync, readFileSync } from "node:fs";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { freePort, startFakeOpenAI } from "@app/testing";
import { streamText } from "ai";
import { SignJWT } from "jose";
import { buildWidgetIfStale } from "../scripts/build.ts";
import { benchDatabase, benchUser, option, printTable, startService, temporaryDataDir } from "./lib.ts";

const users = Number(option("users", "200"));
const dbKind = option("db", "pglite");
const spreadSeconds = Number(option("spread", "10"));
const ANSWER = "Your order ships tomorrow; the tracking number arrives by e-mail.";

const fake = await startFakeOpenAI({ script: () => ({ text: ANSWER, usage: { input: 200, output: 20 } }) });
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const database = await benchDatabase(dbKind);
const env: Record<string, string> = {
  PORT: String(port),
  DATA_DIR: temporaryDataDir("bench-apps"),
  PUBLIC_URL: base,
  ALLOW_PRIVATE_URLS: "1",
  ...database.env,
};

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

/** Resident memory of a process, from /proc (Linux), in MiB. */
function rssMiB(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return match ? Number(match[1]) / 1024 : Number.NaN;
}

/** CPU time (user + system) a process has used, from /proc (Linux), in ms (clock ticks of 10 ms). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** Starts `run` for each of `count` at evenly spread times over `seconds` (all at once for 0). */
function paced<T>(count: number, seconds: number, run: (index: number) => Promise<T>) {
  return Promise.allSettled(
    Array.from(
      { length: count },
      (_, index) =>
        new Promise<T>((resolve, reject) => {
          setTimeout(() => run(index).then(resolve, reject), (index * seconds * 1000) / count);
        }),
    ),
  );
}

function fulfilled<T>(outcomes: PromiseSettledResult<T>[]): T[] {
  return outcomes.flatMap((outcome) => (outcome.status === "fulfilled" ? [outcome.value] : []));
}

/** Opens an SSE answer and resolves with the ms to its first text_delta (or the error it got). */
async function firstDelta(start: number, response: Response): Promise<number> {
  if (response.status !== 200 || !response.body)
    throw new Error(`status ${response.status}: ${await response.text()}`);
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let seen = "";
  let first = Number.NaN;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    seen += decoder.decode(value, { stream: true });
    if (Number.isNaN(first) && seen.includes("event: text_delta")) first = performance.now() - start;
  }
  if (seen.includes("event: error")) throw new Error(seen.slice(seen.indexOf("event: error"), 300));
  if (Number.isNaN(first)) throw new Error(`no text_delta: ${seen.slice(0, 200)}`);
  return first;
}

// The builder reads the widget's scripts once at start.
await buildWidgetIfStale();
const builder = await startService("apps/builder/src/server.ts", env, `${base}/healthz`);
const pid = builder.process.pid ?? 0;
try {
  const { key } = await benchUser(base);
  const auth = { "content-type": "application/json", authorization: `Bearer ${key}` };
  const post = async <T>(path: string, body: unknown): Promise<T> => {
    const response = await fetch(`${base}${path}`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
    return (await response.json()) as T;
  };
  await post("/api/credentials", {
    provider: "openai-compatible",
    api_key: "sk-bench",
    base_url: fake.baseUrl,
  });
  const agent = await post<{ id: string }>("/api/agents", {
    name: "Shop assistant",
    provider: "openai-compatible",
    model: "bench-model",
    instructions: "Be brief.",
  });
  await post(`/api/agents/${agent.id}/versions`, { notes: "bench" });
  const app = await post<{ slug: string; end_user_secret: string }>("/api/apps", {
    agent_id: agent.id,
    rate_limit: null,
  });
  // Host-signed end users, each its own: the session route's per-address allowance would otherwise
  // refuse 200 anonymous sign-ins from one loopback address.
  const secret = new TextEncoder().encode(app.end_user_secret);
  const tokens = await Promise.all(
    Array.from({ length: users }, (_, i) =>
      new SignJWT({ name: `Customer ${i}` })
        .setProtectedHeader({ alg: "HS256" })
        .setSubject(`customer-${i}`)
        .setExpirationTime("1h")
        .sign(secret),
    ),
  );
  const chatUrl = `${base}/api/public/apps/${app.slug}/chat`;
  const turn = (token: string) => {
    const start = performance.now();
    return fetch(chatUrl, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "text/event-stream",
        authorization: `Bearer ${token}`,
      },
      body: JSON.stringify({ message: "Where is my order?" }),
    }).then((response) => firstDelta(start, response));
  };
  const direct = createOpenAICompatible({ name: "bench", baseURL: fake.baseUrl, apiKey: "sk-bench" });
  const directTurn = async () => {
    const start = performance.now();
    const result = streamText({
      model: direct("bench-model"),
      system: "Be brief.",
      prompt: "Where is my order?",
      maxRetries: 0,
    });
    let first = Number.NaN;
    for await (const part of result.fullStream) {
      if (part.type === "text-delta" && Number.isNaN(first)) first = performance.now() - start;
    }
    return first;
  };

  // Warm-up, 20 at a time: every end user's first sight creates its row; code paths get compiled.
  for (let index = 0; index < users; index += 20)
    await Promise.all(tokens.slice(index, index + 20).map(turn));
  await Promise.all(Array.from({ length: 20 }, directTurn));

  const rss: number[] = [rssMiB(pid)];
  const sampler = setInterval(() => rss.push(rssMiB(pid)), 50);
  const rows: (string | number)[][] = [];
  for (const [label, seconds] of [
    ["at once", 0],
    [`paced over ${spreadSeconds} s`, spreadSeconds],
  ] as const) {
    const baseline = fulfilled(await paced(users, seconds, directTurn));
    const cpuBefore = cpuMs(pid);
    const outcomes = await paced(users, seconds, (index) => turn(tokens[index] ?? ""));
    const cpuPerTurn = (cpuMs(pid) - cpuBefore) / users;
    const times = fulfilled(outcomes);
    const errors = outcomes.filter((outcome) => outcome.status === "rejected");
    for (const error of errors.slice(0, 3)) console.error((error as PromiseRejectedResult).reason);
    rows.push(
      [
        `${label}: AI SDK straight at the fake (baseline)`,
        users - baseline.length,
        percentile(baseline, 50),
        percentile(baseline, 95),
        percentile(baseline, 99),
        "—",
        "—",
      ],
      [
        `${label}: public app chat, SSE`,
        errors.length,
        percentile(times, 50),
        percentile(times, 95),
        percentile(times, 99),
        percentile(times, 95) - percentile(baseline, 95),
        cpuPerTurn,
      ],
    );
  }
  clearInterval(sampler);
  rss.push(rssMiB(pid));

  console.log(`\napps benchmark: ${users} end users, one streamed chat turn each, database ${dbKind}\n`);
  printTable(
    [
      "case",
      "errors",
      "first text_delta p50 ms",
      "p95 ms",
      "p99 ms",
      "added p95 ms (target ≤ 150)",
      "builder CPU ms per turn",
    ],
    rows,
  );
  console.log(
    `\nbuilder RSS during the run: start ${rss[0]?.toFixed(0)} MiB, peak ${Math.max(...rss).toFixed(0)} MiB`,
  );

  const widgetBench = new URL("./apps-widget.ts", import.meta.url);
  if (existsSync(widgetBench)) {
    const { benchWidget } = (await import(widgetBench.href)) as {
      benchWidget(base: string, slug: string): Promise<void>;
    };
    await benchWidget(base, app.slug);
  }
} finally {
  await builder.stop();
  await fake.close();
  await database.drop();
}
