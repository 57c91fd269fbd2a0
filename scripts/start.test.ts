// `npm start` end to end: the compiled services (built here if stale) under the supervisor.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("..", import.meta.url));

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

async function status(url: string): Promise<number | undefined> {
  try {
    return (await fetch(url)).status;
  } catch {
    return undefined;
  }
}

async function until(probe: () => Promise<boolean>, what: string, attempts = 1200): Promise<void> {
  for (let i = 0; i < attempts; i++) {
    if (await probe()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** `npm start` on free ports with a temporary DATA_DIR, resolved once both services answer. */
async function startSupervisor() {
  const dataDir = mkdtempSync(join(tmpdir(), "start-test-"));
  const [port, paymentsPort] = [await freePort(), await freePort()];
  const builderUrl = `http://127.0.0.1:${port}`;
  const paymentsUrl = `http://127.0.0.1:${paymentsPort}`;
  const start = spawn(process.execPath, ["scripts/start.ts"], {
    cwd: root,
    env: {
      ...process.env,
      PORT: String(port),
      PAYMENTS_PORT: String(paymentsPort),
      DATA_DIR: dataDir,
      LOG_LEVEL: "warn",
      NODE_ENV: "production",
      VITEST: "",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = new Promise<number | null>((resolve) => start.on("exit", (code) => resolve(code)));
  const started = { dataDir, builderUrl, paymentsUrl, start, exited, output: "" };
  start.stdout?.on("data", (chunk: Buffer) => {
    started.output += chunk.toString();
  });
  start.stderr?.on("data", (chunk: Buffer) => {
    started.output += chunk.toString();
  });
  await until(
    async () =>
      (await status(`${builderUrl}/healthz`)) === 200 && (await status(`${paymentsUrl}/healthz`)) === 200,
    "both services",
  );
  return started;
}

/** The process listening on the port of `url`. */
function listeningPid(url: string): number {
  const listening = execFileSync("ss", ["-ltnpH", `sport = :${new URL(url).port}`]).toString();
  return Number(listening.match(/pid=(\d+)/)?.[1]);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("npm start", () => {
  let dataDir: string;
  let start: ChildProcess;
  let started: Awaited<ReturnType<typeof startSupervisor>>;
  let builderUrl: string;
  let paymentsUrl: string;
  let exited: Promise<number | null>;

  beforeAll(async () => {
    started = await startSupervisor();
    ({ dataDir, start, builderUrl, paymentsUrl, exited } = started);
  }, 180_000);

  afterAll(() => {
    if (start.exitCode === null) start.kill("SIGKILL");
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("brings a SIGKILLed payment service back while the builder keeps answering, and Ctrl-C stops both", async () => {
    const paymentsPid = listeningPid(paymentsUrl);
    expect(paymentsPid).toBeGreaterThan(0);
    process.kill(paymentsPid, "SIGKILL");

    const builderAnswers: (number | undefined)[] = [];
    await until(async () => {
      builderAnswers.push(await status(`${builderUrl}/healthz`));
      return (await status(`${paymentsUrl}/readyz`)) === 200;
    }, "the payment service to come back");
    expect(started.output).toMatch(/payments exited unexpectedly: killed by SIGKILL/);
    expect(builderAnswers.length).toBeGreaterThan(0);
    expect(builderAnswers.every((answer) => answer === 200)).toBe(true);
    // The builder's database still answers: it is the same process, never restarted.
    expect(await status(`${builderUrl}/readyz`)).toBe(200);
    expect(started.output).not.toMatch(/builder exited/);

    start.kill("SIGINT");
    expect(await exited).toBe(0);
    expect(await status(`${builderUrl}/healthz`)).toBeUndefined();
    expect(await status(`${paymentsUrl}/healthz`)).toBeUndefined();
  }, 120_000);
});

describe("npm start killed hard", () => {
  it("takes both services down with it when the supervisor is SIGKILLed (as an OOM killer or a container runtime's hard stop does), freeing their ports", async () => {
    const { dataDir, start, builderUrl, paymentsUrl, exited } = await startSupervisor();
    const pids = [listeningPid(builderUrl), listeningPid(paymentsUrl)];
    try {
      expect(pids.every((pid) => pid > 0)).toBe(true);
      start.kill("SIGKILL");
      await exited;
      await until(async () => pids.every((pid) => !isAlive(pid)), "both services to stop", 600);
      expect(await status(`${builderUrl}/healthz`)).toBeUndefined();
      expect(await status(`${paymentsUrl}/healthz`)).toBeUndefined();
      // Free: a new listener can bind both ports at once.
      for (const url of [builderUrl, paymentsUrl]) {
        const server = createServer();
        await new Promise<void>((resolve, reject) => {
          server.once("error", reject);
          server.listen(Number(new URL(url).port), "127.0.0.1", resolve);
        });
        await new Promise((resolve) => server.close(resolve));
      }
    } finally {
      for (const pid of pids.filter((pid) => pid > 0 && isAlive(pid))) process.kill(pid, "SIGKILL");
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 180_000);
});
