// Shared helpers of the benchmarks: load generation, child services, tables.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";

export const repoRoot = fileURLToPath(new URL("..", import.meta.url));

export interface LoadResult {
  name: string;
  requestsPerSecond: number;
  p50: number;
  p99: number;
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
  const child = spawn(process.execPath, ["--import", "tsx", entry], {
    cwd: repoRoot,
    env: { ...process.env, LOG_LEVEL: "warn", ...env },
    stdio: ["ignore", "inherit", "inherit"],
  });
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${entry} exited with ${child.exitCode}`);
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
