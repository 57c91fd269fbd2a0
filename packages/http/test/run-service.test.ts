import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { type ClientRequest, get } from "node:http";
import { fileURLToPath } from "node:url";
import { freePort } from "@app/testing";
import { afterEach, describe, expect, it } from "vitest";

const fixture = fileURLToPath(new URL("./fixtures/pid-service.ts", import.meta.url));
const started: ChildProcess[] = [];

afterEach(() => {
  for (const child of started.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
});

function startFixture(env: Record<string, string>) {
  const child = spawn(process.execPath, ["--import", "tsx", fixture], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  started.push(child);
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { child, exited, stderr: () => stderr };
}

/** The process ids that answer, each request on a new connection. */
async function pidsServing(port: number, requests = 40): Promise<Set<string>> {
  const pids = new Set<string>();
  for (let i = 0; i < requests; i++) pids.add(await getOnNewConnection(`http://127.0.0.1:${port}/pid`));
  return pids;
}

/** fetch would reuse a kept-alive connection, and with it the same worker. */
function getOnNewConnection(url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    // A connection handed to a worker as it dies is never answered: give up on it, retry.
    get(url, { agent: false, timeout: 2_000 }, (response) => {
      let body = "";
      response.on("data", (chunk: Buffer) => {
        body += chunk.toString();
      });
      response.on("end", () => resolve(body));
    })
      .on("timeout", function (this: ClientRequest) {
        this.destroy(new Error("no answer"));
      })
      .on("error", reject);
  });
}

async function waitUntil<T>(probe: () => Promise<T | undefined>, what: string): Promise<T> {
  for (let attempt = 0; attempt < 300; attempt++) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

function parentOf(pid: number): number {
  return Number(execFileSync("ps", ["-o", "ppid=", "-p", String(pid)], { encoding: "utf8" }).trim());
}

describe("runService with several processes", () => {
  it("serves from every worker, replaces a crashed one and stops them all on SIGTERM", async () => {
    const port = await freePort();
    const service = startFixture({ PORT: String(port), PROCESSES: "2" });
    const primary = service.child.pid ?? 0;

    const first = await waitUntil(async () => {
      const pids = await pidsServing(port);
      return pids.size === 2 ? pids : undefined;
    }, "two workers answering");
    expect(first.has(String(primary))).toBe(false);

    const [victim] = [...first].map(Number);
    process.kill(victim ?? 0, "SIGKILL");
    const replaced = await waitUntil(async () => {
      const pids = await pidsServing(port);
      return pids.size === 2 && !pids.has(String(victim)) ? pids : undefined;
    }, "a replacement worker");
    expect(replaced.size).toBe(2);
    expect(service.stderr()).toContain(`worker process ${victim} exited (SIGKILL); starting another`);

    // The workers that answered, not every child: tsx's esbuild service is a child of the primary too.
    const workers = [...replaced].map(Number);
    for (const pid of workers) expect(parentOf(pid)).toBe(primary);
    service.child.kill("SIGTERM");
    expect(await service.exited).toBe(0);
    for (const pid of workers) expect(() => process.kill(pid, 0)).toThrow();
  });

  it("exits 78 with the message, once, when the configuration is bad", async () => {
    const service = startFixture({ PORT: "0", PROCESSES: "2", FAIL_CONFIG: "1" });
    expect(await service.exited).toBe(78);
    expect(service.stderr().match(/pid-service: Invalid configuration/g)).toHaveLength(1);
  });

  it("serves from its own process with one", async () => {
    const port = await freePort();
    const service = startFixture({ PORT: String(port), PROCESSES: "1" });
    const pids = await waitUntil(() => pidsServing(port, 3), "the service answering");
    expect([...pids]).toEqual([String(service.child.pid)]);
    service.child.kill("SIGINT");
    expect(await service.exited).toBe(0);
  });
});
