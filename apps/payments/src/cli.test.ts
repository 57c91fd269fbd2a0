import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createTestDatabase } from "@app/db/testing";
import { freePort } from "@app/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadPaymentsConfig } from "./config.ts";
import { paymentsMigrationsFolder, schema } from "./db/index.ts";
import { merchants } from "./merchants/schema.ts";
import { type RunningPayments, startPayments } from "./start.ts";

const root = fileURLToPath(new URL("../../..", import.meta.url));
const USAGE = 'usage: npm run payments -- merchant:create --name "Merchant name"';

let dataDir: string;
let database: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
let env: Record<string, string>;
let service: RunningPayments | undefined;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "payments-cli-"));
  // PGlite lives inside one process, so the CLI and then the service take turns on it in DATA_DIR.
  database = process.env.TEST_DATABASE_URL
    ? await createTestDatabase({ schema, migrationsFolder: paymentsMigrationsFolder })
    : undefined;
  env = {
    DATA_DIR: dataDir,
    LOG_LEVEL: "silent",
    ...(database?.url ? { PAYMENTS_DATABASE_URL: database.url } : {}),
  };
});

afterAll(async () => {
  await service?.stop();
  await database?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** `npm run payments -- …` typed at the repository root, with this file's database. */
function runCli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn("npm", ["run", "--silent", "payments", "--", ...args], {
    cwd: root,
    // A PAYMENTS_DATABASE_URL of the shell running the tests must not reach the CLI on PGlite.
    env: { ...process.env, PAYMENTS_DATABASE_URL: undefined, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout, stderr }));
  });
}

describe("npm run payments -- merchant:create", () => {
  // Runs first: the next test finds only its own merchant in the database.
  it("answers a bad invocation with the usage and exit code 2, creating nothing", {
    timeout: 60_000,
  }, async () => {
    const cases: [string[], string | undefined][] = [
      [["merchant:create"], undefined],
      [["merchant:delete", "--name", "Toko Kopi"], undefined],
      [["merchant:create", "--nmae", "Toko Kopi"], "Unknown option '--nmae'"],
    ];
    for (const [args, reason] of cases) {
      const result = await runCli(args);
      expect(result.code, args.join(" ")).toBe(2);
      expect(result.stdout).toBe("");
      expect(result.stderr).toContain(USAGE);
      if (reason) expect(result.stderr).toContain(reason);
      expect(result.stderr, "no stack trace").not.toMatch(/^\s+at /m);
    }
  });

  it("prints a new merchant's keys once; the service then accepts them", { timeout: 90_000 }, async () => {
    const created = await runCli(["merchant:create", "--name", "Toko Kopi"]);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stderr).toContain("not shown again");
    const printed = JSON.parse(created.stdout) as {
      merchant: string;
      name: string;
      secret_keys: { test: string; live: string };
    };
    expect(printed).toEqual({
      merchant: expect.stringMatching(/^mch_/),
      name: "Toko Kopi",
      secret_keys: { test: expect.stringMatching(/^sk_test_/), live: expect.stringMatching(/^sk_live_/) },
    });

    service = await startPayments(loadPaymentsConfig({ ...env, PAYMENTS_PORT: String(await freePort()) }));
    const url = service.server.url;
    const balanceWith = (key: string) =>
      fetch(`${url}/v1/balance`, { headers: { authorization: `Bearer ${key}` } });
    for (const environment of ["test", "live"] as const) {
      const response = await balanceWith(printed.secret_keys[environment]);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ object: "balance", environment, available: [] });
    }
    expect((await balanceWith(`${printed.secret_keys.test}x`)).status).toBe(401);
    const rows = await service.deps.db.select().from(merchants);
    expect(rows.map((row) => [row.id, row.name])).toEqual([[printed.merchant, "Toko Kopi"]]);
  });
});
