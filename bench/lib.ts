// Shared helpers of the benchmarks: load generation, child services, tables.
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";
import pg from "pg";

export const repoRoot = fileURLToPath(new URL("..", import.meta.url));

export interface LoadResult {
  name: string;
  requestsPerSecond: number;
  /** autocannon records whole milliseconds: a p50 under 1 ms reads 0. */
  p50: number;
  p99: number;
  /** The mean to the hundredth of a millisecond, for comparisons below autocannon's resolution. */
  mean: number;
  errors: number;
  non2xx: number;
}

/** Drives one URL with `connections` concurrent clients for `seconds`, like a small wrk. */
export async function load(
  name: string,
  options: {
    url: string;
    connections: number;
    seconds: number;
    method?: "GET" | "POST";
    headers?: Record<string, string>;
    body?: string;
  },
): Promise<LoadResult> {
  const result = await autocannon({
    url: options.url,
    connections: options.connections,
    duration: options.seconds,
    method: options.method ?? "GET",
    headers: options.headers ?? {},
    ...(options.body === undefined ? {} : { body: options.body }),
  });
  return {
    name,
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    mean: result.latency.mean,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
  };
}

/** Starts a service entry point in its own process and waits for its health route. */
export async function startService(
  entry: string,
  env: Record<string, string>,
  healthUrl: string,
): Promise<{ process: ChildProcess; stop(): Promise<void> }> {
  // BENCH_PROFILE=<dir> writes the service's CPU profile there when it stops (open it in Chrome's DevTools).
  const profile = process.env.BENCH_PROFILE
    ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_PROFILE}`]
    : [];
  const child = spawn(process.execPath, [...profile, "--import", "tsx", entry], {
    cwd: repoRoot,
    env: { ...process.env, LOG_LEVEL: "warn", ...env },
    stdio: ["ignore", "inherit", "inherit"],
  });
  // Generous: on a loaded machine a start through the TypeScript loader can take a minute or more.
  const deadline = Date.now() + 180_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${entry} exited with ${child.exitCode}`);
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`${entry} did not answer ${healthUrl} within 180 s`);
    }
    try {
      if ((await fetch(healthUrl)).ok) break;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  return {
    process: child,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}

export function temporaryDataDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `${prefix}-`));
}

/** Prints rows as a markdown table. */
export function printTable(headers: string[], rows: (string | number)[][]): void {
  const format = (value: string | number) => (typeof value === "number" ? formatNumber(value) : value);
  console.log(`| ${headers.join(" | ")} |`);
  console.log(`|${headers.map(() => " --- ").join("|")}|`);
  for (const row of rows) console.log(`| ${row.map(format).join(" | ")} |`);
}

function formatNumber(value: number): string {
  if (Number.isInteger(value)) return String(value);
  return value >= 100 ? value.toFixed(0) : value.toFixed(2);
}

/** Reads `--name value` from argv. */
export function option(name: string, fallback: string): string {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? (process.argv[index + 1] ?? fallback) : fallback;
}

/**
 * A fresh database for a benchmarked builder: nothing for PGlite (the service makes its own in its
 * data directory), or a new database on the server in `BENCH_DATABASE_URL` (default: the local one)
 * for `--db postgres`, with its removal. `processes` above 1 serves the builder from that many
 * processes (`WEB_CONCURRENCY`), which only PostgreSQL allows.
 */
export async function benchDatabase(
  kind: string,
  processes = 1,
): Promise<{ env: Record<string, string>; drop(): Promise<void> }> {
  if (kind !== "postgres") {
    if (processes > 1) throw new Error("--processes above 1 needs --db postgres");
    return { env: {}, drop: async () => {} };
  }
  const server = process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
  const name = `bench_${randomBytes(4).toString("hex")}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: server });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`create database ${name}`);
  const url = new URL(server);
  url.pathname = `/${name}`;
  return {
    env: { DATABASE_URL: url.toString(), WEB_CONCURRENCY: String(processes) },
    drop: () => admin(`drop database if exists ${name} with (force)`),
  };
}

/** Signs a user up on a running builder and answers its session cookie and a new API key. */
export async function benchUser(base: string): Promise<{ cookie: string; key: string }> {
  const signUp = await fetch(`${base}/api/auth/sign-up/email`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: base },
    body: JSON.stringify({ email: "bench@example.com", password: "benchmark-password", name: "Bench" }),
  });
  const cookie = signUp.headers.getSetCookie()[0]?.split(";")[0] ?? "";
  const keyResponse = await fetch(`${base}/api/keys`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: base, cookie },
    body: JSON.stringify({ name: "bench" }),
  });
  const { key } = (await keyResponse.json()) as { key: string };
  return { cookie, key };
}
