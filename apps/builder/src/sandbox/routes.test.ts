import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { systemClock } from "@app/core";
import { createTestDatabase } from "@app/db/testing";
import { createLogger, errorHandler, notFoundHandler } from "@app/http";
import { createSandbox } from "@app/sandbox";
import { OpenAPIHono } from "@hono/zod-openapi";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { creditLedger } from "../billing/schema.ts";
import { loadConfig } from "../config.ts";
import { builderMigrationsFolder, schema } from "../db/index.ts";
import type { AppEnv } from "../env.ts";
import { sandboxRoutes } from "./routes.ts";

/** Log lines as JSON objects, so a test can say what was logged as what. */
const logLines: { level: number; msg: string }[] = [];
const logger = createLogger({
  service: "sandbox-routes-test",
  level: "warn",
  destination: { write: (line: string) => logLines.push(JSON.parse(line)) },
});
const config = loadConfig({
  DATA_DIR: mkdtempSync(join(tmpdir(), "sandbox-routes-")),
  SECRET_KEY: "test-secret-key-that-is-long-enough-0123456789",
});
const WORKSPACE = "wsp_sandbox_routes";
const OTHER_WORKSPACE = "wsp_sandbox_routes_other";
let database: Awaited<ReturnType<typeof createTestDatabase<typeof schema>>>;

beforeAll(async () => {
  database = await createTestDatabase({ schema, migrationsFolder: builderMigrationsFolder });
  await database.db.insert(schema.user).values([
    { id: "usr_1", name: "Ada", email: "ada@example.com" },
    { id: "usr_2", name: "Grace", email: "grace@example.com" },
  ]);
  await database.db.insert(schema.workspaces).values([
    { id: WORKSPACE, ownerUserId: "usr_1", name: "Ada's" },
    { id: OTHER_WORKSPACE, ownerUserId: "usr_2", name: "Grace's" },
  ]);
});
afterAll(() => database?.close());

/** The routes in-process, behind the same error handler as the app (auth is the app's, tested over HTTP). */
function appWith(sandbox: Parameters<typeof sandboxRoutes>[1], workspaceId = WORKSPACE) {
  const app = new OpenAPIHono<AppEnv>();
  app.onError(errorHandler(logger));
  app.notFound(notFoundHandler);
  app.use("*", async (c, next) => {
    c.set("principal", { userId: "usr_1", workspaceId, role: "owner", via: "session" });
    await next();
  });
  app.route("/api/sandbox", sandboxRoutes({ logger, db: database.db, clock: systemClock, config }, sandbox));
  return app;
}

const run = (app: ReturnType<typeof appWith>, body: unknown) =>
  app.request("/api/sandbox/run", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });

const HELLO = { language: "python", code: "def main(inputs):\n    return {}\n", input: {} };

describe("sandbox routes on a host that cannot run code", () => {
  it("answer 503 sandbox_unavailable when no sandbox was constructed", async () => {
    const app = appWith(undefined);
    const response = await run(app, HELLO);
    expect(response.status).toBe(503);
    expect(await response.json()).toMatchObject({
      error: { code: "sandbox_unavailable", type: "api_error" },
    });
    const runtimes = await app.request("/api/sandbox/runtimes");
    expect(await runtimes.json()).toMatchObject({ available: false, languages: expect.any(Array) });
  });

  it("answer 503 with the install hint when bubblewrap is missing", async () => {
    const sandbox = await createSandbox({ bwrapPath: "/nonexistent/bwrap", warmPerLanguage: 0 });
    try {
      const app = appWith(sandbox);
      const response = await run(app, HELLO);
      expect(response.status).toBe(503);
      const body = (await response.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe("sandbox_unavailable");
      expect(body.error.message).toContain("apt-get install bubblewrap");
      const runtimes = (await (await app.request("/api/sandbox/runtimes")).json()) as {
        available: boolean;
        reason: string;
      };
      expect(runtimes.available).toBe(false);
      expect(runtimes.reason).toContain("bubblewrap");
    } finally {
      await sandbox.close();
    }
  });

  it("answer 429 sandbox_busy with Retry-After when the queue times out, logged as a capacity refusal", async () => {
    const sandbox = await createSandbox({
      uidBase: 1_660_000_000,
      concurrency: 1,
      queueTimeoutMs: 100,
      warmPerLanguage: 0,
    });
    try {
      const app = appWith(sandbox);
      const long = run(app, {
        language: "python",
        code: "import time\ndef main(inputs):\n    time.sleep(2)\n    return {}\n",
        input: {},
      });
      while (sandbox.stats().active === 0) await new Promise((resolve) => setTimeout(resolve, 10));
      logLines.length = 0;
      const response = await run(app, HELLO);
      expect(response.status).toBe(429);
      expect(response.headers.get("retry-after")).toBe("1");
      expect(await response.json()).toMatchObject({
        error: {
          code: "sandbox_busy",
          type: "rate_limit_error",
          message: expect.stringContaining("retry in 1 s"),
        },
      });
      expect(logLines.map((line) => line.msg)).toEqual(["sandbox capacity refusal"]);
      const finished = await long;
      expect(finished.status).toBe(200);
      // The run that went through is billed for its time.
      const { duration_ms } = (await finished.json()) as { duration_ms: number };
      const entries = await database.db
        .select()
        .from(creditLedger)
        .where(eq(creditLedger.workspaceId, WORKSPACE));
      expect(entries.map((entry) => [entry.kind, entry.credits, entry.details.duration_ms])).toEqual([
        ["usage", -Math.ceil((duration_ms * config.billing.prices.sandboxSecond) / 1000), duration_ms],
      ]);
    } finally {
      await sandbox.close();
    }
  });
});

describe("sandbox routes under load", () => {
  it("refuse a flooding workspace's queued runs with 429 while another workspace's run starts at once and succeeds", async () => {
    // The defaults on two cores: a pool of 2, a workspace's share 1 (the whole pool only while it is alone).
    const sandbox = await createSandbox({
      uidBase: 1_665_000_000,
      concurrency: 2,
      queueTimeoutMs: 300,
      warmPerLanguage: 0,
    });
    try {
      const flooder = appWith(sandbox, WORKSPACE);
      const other = appWith(sandbox, OTHER_WORKSPACE);
      const slow = {
        language: "python",
        code: "import time\ndef main(inputs):\n    time.sleep(3)\n    return {'slept': True}\n",
        input: {},
      };
      // The other workspace ran a moment ago, so the flooder may not borrow its slot.
      expect((await run(other, HELLO)).status).toBe(200);
      const flood = [run(flooder, slow), run(flooder, slow), run(flooder, slow)];
      while (sandbox.stats().active === 0) await new Promise((resolve) => setTimeout(resolve, 10));
      const light = await run(other, { ...HELLO, code: "def main(inputs):\n    return {'light': True}\n" });
      expect(light.status).toBe(200);
      expect(await light.json()).toMatchObject({ output: { light: true }, error: null });
      // Answered while the flood's first run was still sleeping: it never waited behind the flood.
      expect(sandbox.stats().active).toBe(1);
      const statuses = await Promise.all(flood.map(async (response) => (await response).status));
      expect(statuses.sort()).toEqual([200, 429, 429]);
    } finally {
      await sandbox.close();
    }
  });
});
