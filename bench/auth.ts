// npm run bench -- auth [--seconds 10] [--connections 20] [--db pglite|postgres]
// Sign-in and authenticated GET /api/agents (cookie and API key) at 20 concurrent clients, next to
// /healthz on the same server (same middleware, no auth, no database) as the baseline.
import { randomBytes } from "node:crypto";
import { freePort } from "@app/testing";
import pg from "pg";
import { load, option, printTable, startService, temporaryDataDir } from "./lib.ts";

const seconds = Number(option("seconds", "10"));
const connections = Number(option("connections", "20"));
const dbKind = option("db", "pglite");

const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const env: Record<string, string> = {
  PORT: String(port),
  DATA_DIR: temporaryDataDir("bench-auth"),
  PUBLIC_URL: base,
  AUTH_SIGN_IN_PER_MINUTE: "100000000",
};
let dropDatabase: (() => Promise<void>) | undefined;
if (dbKind === "postgres") {
  const server = process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
  const name = `bench_${randomBytes(4).toString("hex")}`;
  const admin = new pg.Client({ connectionString: server });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(server);
  url.pathname = `/${name}`;
  env.DATABASE_URL = url.toString();
  dropDatabase = async () => {
    const client = new pg.Client({ connectionString: server });
    await client.connect();
    await client.query(`drop database if exists ${name} with (force)`);
    await client.end();
  };
}

const builder = await startService("apps/builder/src/server.ts", env, `${base}/healthz`);
try {
  const credentials = { email: "bench@example.com", password: "benchmark-password", name: "Bench" };
  const signUp = await fetch(`${base}/api/auth/sign-up/email`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: base },
    body: JSON.stringify(credentials),
  });
  const cookie = signUp.headers.getSetCookie()[0]?.split(";")[0] ?? "";
  const keyResponse = await fetch(`${base}/api/keys`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: base, cookie },
    body: JSON.stringify({ name: "bench" }),
  });
  const { key } = (await keyResponse.json()) as { key: string };
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
    body: JSON.stringify({ email: credentials.email, password: credentials.password }),
  });

  console.log(`\nauth benchmark: ${connections} concurrent clients, ${seconds}s each, database ${dbKind}\n`);
  printTable(
    ["case", "requests/s", "p50 ms", "p99 ms", "p50 vs baseline", "errors", "non-2xx"],
    [baseline, byCookie, byKey, keyNoDb, signIn].map((r) => [
      r.name,
      r.requestsPerSecond,
      r.p50,
      r.p99,
      `${(r.p50 / Math.max(baseline.p50, 0.01)).toFixed(2)}x`,
      r.errors,
      r.non2xx,
    ]),
  );
  console.log("\nTarget: authenticated GET p50 within 3x of the baseline's p50.");
} finally {
  await builder.stop();
  await dropDatabase?.();
}
