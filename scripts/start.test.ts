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

describe("npm start", () => {
  let dataDir: string;
  let start: ChildProcess;
  let output = "";
  let builderUrl: string;
  let paymentsUrl: string;
  let exited: Promise<number | null>;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), "start-test-"));
    const [port, paymentsPort] = [await freePort(), await freePort()];
    builderUrl = `http://127.0.0.1:${port}`;
    paymentsUrl = `http://127.0.0.1:${paymentsPort}`;
    start = spawn(process.execPath, ["scripts/start.ts"], {
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
    exited = new Promise((resolve) => start.on("exit", (code) => resolve(code)));
    start.stdout?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    start.stderr?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    await until(
      async () =>
        (await status(`${builderUrl}/healthz`)) === 200 && (await status(`${paymentsUrl}/healthz`)) === 200,
      "both services",
    );
  }, 180_000);

  afterAll(() => {
    if (start.exitCode === null) start.kill("SIGKILL");
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("brings a SIGKILLed payment service back while the builder keeps answering, and Ctrl-C stops both", async () => {
    // The process listening on the payment service's port.
    const listening = execFileSync("ss", ["-ltnpH", `sport = :${new URL(paymentsUrl).port}`]).toString();
    const paymentsPid = Number(listening.match(/pid=(\d+)/)?.[1]);
    expect(paymentsPid).toBeGreaterThan(0);
    process.kill(paymentsPid, "SIGKILL");

    const builderAnswers: (number | undefined)[] = [];
    await until(async () => {
      builderAnswers.push(await status(`${builderUrl}/healthz`));
      return (await status(`${paymentsUrl}/readyz`)) === 200;
    }, "the payment service to come back");
    expect(output).toMatch(/payments exited unexpectedly: killed by SIGKILL/);
    expect(builderAnswers.length).toBeGreaterThan(0);
    expect(builderAnswers.every((answer) => answer === 200)).toBe(true);
    // The builder's database still answers: it is the same process, never restarted.
    expect(await status(`${builderUrl}/readyz`)).toBe(200);
    expect(output).not.toMatch(/builder exited/);

    start.kill("SIGINT");
    expect(await exited).toBe(0);
    expect(await status(`${builderUrl}/healthz`)).toBeUndefined();
    expect(await status(`${paymentsUrl}/healthz`)).toBeUndefined();
  }, 120_000);
});
