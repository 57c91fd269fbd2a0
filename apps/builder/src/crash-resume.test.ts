// A builder killed (SIGKILL) in the middle of a run, and started again: the run resumes from the node
// that was running, and the nodes that had completed do not run again.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createTestDatabase } from "@app/db/testing";
import { freePort } from "@app/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builderMigrationsFolder, schema } from "./db/index.ts";

const repoRoot = fileURLToPath(new URL("../../..", import.meta.url));
const dataDir = mkdtempSync(join(tmpdir(), "builder-crash-"));
let database: Awaited<ReturnType<typeof createTestDatabase>> | undefined;

beforeAll(async () => {
  // On PostgreSQL the child processes share a fresh database; on PGlite they share DATA_DIR.
  if (process.env.TEST_DATABASE_URL) {
    database = await createTestDatabase({ schema, migrationsFolder: builderMigrationsFolder });
  }
});

afterAll(async () => {
  await database?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** The outside API the workflow calls: counts every request per path and holds the first /slow one. */
function countingServer() {
  const seen: { path: string; headers: IncomingHttpHeaders }[] = [];
  const held: ServerResponse[] = [];
  let onHeld: () => void = () => {};
  const firstSlow = new Promise<void>((resolve) => {
    onHeld = resolve;
  });
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? "/", "http://x").pathname;
    seen.push({ path, headers: request.headers });
    if (path === "/slow" && held.length === 0) {
      held.push(response);
      onHeld();
      return;
    }
    response.setHeader("content-type", "application/json");
    response.end(JSON.stringify({ path, count: seen.filter((entry) => entry.path === path).length }));
  });
  return {
    server,
    firstSlow,
    count: (path: string) => seen.filter((entry) => entry.path === path).length,
    keys: (path: string) =>
      seen.filter((entry) => entry.path === path).map((entry) => entry.headers["idempotency-key"]),
    close: () => {
      for (const response of held) response.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The builder as `npm start` runs it, in its own process, ready once /healthz answers. */
async function startChild(port: number): Promise<ChildProcess> {
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    PORT: String(port),
    DATA_DIR: dataDir,
    SECRET_KEY: "test-secret-key-that-is-long-enough-0123456789",
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    ALLOW_PRIVATE_URLS: "1",
    LOG_LEVEL: "warn",
    // A short lease, so on a shared database the restarted process takes the run over within seconds.
    WORKFLOW_RUN_LEASE_SECONDS: "2",
    ...(database?.url ? { DATABASE_URL: database.url } : {}),
  };
  delete env.WEB_CONCURRENCY;
  const child = spawn(process.execPath, ["--import", "tsx", "apps/builder/src/server.ts"], {
    cwd: repoRoot,
    env,
    stdio: ["ignore", "inherit", "inherit"],
  });
  const deadline = Date.now() + 180_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the builder exited with ${child.exitCode}`);
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error("the builder did not start within 180 s");
    }
    try {
      if ((await fetch(`http://127.0.0.1:${port}/healthz`)).ok) return child;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

function killed(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once("exit", () => resolve());
    child.kill("SIGKILL");
  });
}

describe("a builder killed mid-run", () => {
  it("resumes the run after a restart: completed nodes ran once, the node cut off ran again with the same Idempotency-Key", async () => {
    const outside = countingServer();
    await new Promise<void>((resolve) => outside.server.listen(0, "127.0.0.1", resolve));
    const outsideUrl = `http://127.0.0.1:${(outside.server.address() as AddressInfo).port}`;
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    let child = await startChild(port);
    try {
      const post = (path: string, body: unknown, cookie = "") =>
        fetch(`${base}${path}`, {
          method: "POST",
          headers: { "content-type": "application/json", origin: base, cookie },
          body: JSON.stringify(body),
        });
      const signUp = await post("/api/auth/sign-up/email", {
        email: "crash@example.com",
        password: "correct horse battery",
        name: "Crash",
      });
      const cookie = signUp.headers.getSetCookie()[0]?.split(";")[0] ?? "";
      const node = (id: string, type: string, data: Record<string, unknown>) => ({
        id,
        type,
        position: { x: 0, y: 0 },
        data,
      });
      const call = (id: string, path: string) =>
        node(id, "http", { method: "POST", url: `${outsideUrl}${path}` });
      const created = await post(
        "/api/workflows",
        {
          name: "crash",
          graph: {
            nodes: [
              node("start", "start", { inputs: [] }),
              call("first", "/first"),
              call("slow", "/slow"),
              call("last", "/last"),
              node("done", "end", {
                outputs: [
                  { name: "first", value: "{{first.json.count}}" },
                  { name: "slow", value: "{{slow.json.count}}" },
                  { name: "last", value: "{{last.json.count}}" },
                ],
              }),
            ],
            edges: [
              { id: "e1", source: "start", target: "first" },
              { id: "e2", source: "first", target: "slow" },
              { id: "e3", source: "slow", target: "last" },
              { id: "e4", source: "last", target: "done" },
            ],
          },
        },
        cookie,
      );
      expect(created.status, await created.clone().text()).toBe(201);
      const workflow = (await created.json()) as { id: string; trigger_url: string };
      // The trigger URL answers at once and runs in the background, its run row written at start.
      const triggered = await fetch(`${base}${new URL(workflow.trigger_url).pathname}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "{}",
      });
      expect(triggered.status).toBe(202);
      const { run_id: runId } = (await triggered.json()) as { run_id: string };

      await outside.firstSlow;
      await killed(child);
      expect(outside.count("/first")).toBe(1);
      expect(outside.count("/last")).toBe(0);

      child = await startChild(port);
      let run:
        | {
            status: string;
            outputs: Record<string, unknown> | null;
            nodes: { node_id: string; status: string }[];
          }
        | undefined;
      for (const deadline = Date.now() + 60_000; Date.now() < deadline; ) {
        const answer = await fetch(`${base}/api/runs/${runId}`, { headers: { cookie } });
        run = (await answer.json()) as typeof run;
        if (run?.status !== "running") break;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      expect(run?.status, JSON.stringify(run)).toBe("succeeded");
      expect(run?.outputs).toEqual({ first: 1, slow: 2, last: 1 });
      expect(Object.fromEntries(run?.nodes.map((entry) => [entry.node_id, entry.status]) ?? [])).toEqual({
        start: "succeeded",
        first: "succeeded",
        slow: "succeeded",
        last: "succeeded",
        done: "succeeded",
      });
      expect({
        first: outside.count("/first"),
        slow: outside.count("/slow"),
        last: outside.count("/last"),
      }).toEqual({
        first: 1,
        slow: 2,
        last: 1,
      });
      expect(outside.keys("/slow")).toEqual([`${runId}:slow`, `${runId}:slow`]);
    } finally {
      await killed(child);
      await outside.close();
    }
  }, 600_000);
});
