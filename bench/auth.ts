// npm run bench -- auth [--seconds 10] [--connections 20] [--db pglite|postgres] [--processes 1]
// Sign-in and authenticated GET /api/agents (cookie and API key) at 20 concurrent clients, next to
// /healthz on the same server (same middleware, no auth, no database) as the baseline.
import { freePort } from "@app/testing";
import { benchDatabase, benchUser, load, option, printTable, startService, temporaryDataDir } from "./lib.ts";

const seconds = Number(option("seconds", "10"));
const connections = Number(option("connections", "20"));
const dbKind = option("db", "pglite");
const processes = Number(option("processes", "1"));

const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const env: Record<string, string> = {
  PORT: String(port),
  DATA_DIR: temporaryDataDir("bench-auth"),
  PUBLIC_URL: base,
  AUTH_SIGN_IN_PER_MINUTE: "100000000",
};
const database = await benchDatabase(dbKind, processes);
Object.assign(env, database.env);

const builder = await startService("apps/builder/src/server.ts", env, `${base}/healthz`);
try {
  const { cookie, key } = await benchUser(base);
  for (let i = 0; i < 20; i++) {
    await fetch(`${base}/api/agents`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
      body: JSON.stringify({ name: `agent ${i}`, provider: "openai", model: "gpt-4o-mini" }),
    });
  }

  const common = { connections, seconds };
  const baseline = await load("GET /healthz (baseline: same server, no auth)", {
    ...common,
    url: `${base}/healthz`,
  });
  const byCookie = await load("GET /api/agents (session cookie)", {
    ...common,
    url: `${base}/api/agents`,
    headers: { cookie },
  });
  const byKey = await load("GET /api/agents (Bearer API key)", {
    ...common,
    url: `${base}/api/agents`,
    headers: { authorization: `Bearer ${key}` },
  });
  const keyNoDb = await load("GET /api/keys?limit=1 (Bearer key, one small query)", {
    ...common,
    url: `${base}/api/keys?limit=1`,
    headers: { authorization: `Bearer ${key}` },
  });
  const signIn = await load("POST /api/auth/sign-in/email", {
    ...common,
    url: `${base}/api/auth/sign-in/email`,
    method: "POST",
    headers: { "content-type": "application/json", origin: base },
    body: JSON.stringify({ email: "bench@example.com", password: "benchmark-password" }),
  });

  console.log(
    `\nauth benchmark: ${connections} concurrent clients, ${seconds}s each, database ${dbKind}, ${processes} builder process(es)\n`,
  );
  printTable(
    [
      "case",
      "requests/s",
      "p50 ms",
      "p99 ms",
      "p50 vs baseline",
      "mean ms",
      "mean vs baseline",
      "errors",
      "non-2xx",
    ],
    [baseline, byCookie, byKey, keyNoDb, signIn].map((r) => [
      r.name,
      r.requestsPerSecond,
      r.p50,
      r.p99,
      // autocannon's whole milliseconds make a ratio to a 0 ms p50 meaningless.
      baseline.p50 >= 1 ? `${(r.p50 / baseline.p50).toFixed(2)}x` : "— (baseline < 1 ms)",
      r.mean,
      `${(r.mean / baseline.mean).toFixed(2)}x`,
      r.errors,
      r.non2xx,
    ]),
  );
  console.log("\nTarget: authenticated GET p50 within 3x of the baseline's p50.");
} finally {
  await builder.stop();
  await database.drop();
}
