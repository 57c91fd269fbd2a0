import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Clock, systemClock } from "@app/core";
import { createTestDatabase } from "@app/db/testing";
import { createLogger, type Logger, listen } from "@app/http";
import { type OpenApiDocument, openApiConformance } from "@app/http/testing";
import { freePort } from "@app/testing";
import { type BuilderApp, createBuilderApp } from "../src/app.ts";
import { type BuilderConfig, loadConfig } from "../src/config.ts";
import { builderMigrationsFolder, schema } from "../src/db/index.ts";
import type { Deps } from "../src/deps.ts";
import { knowledgeSearch } from "../src/knowledge/knowledge-ports.ts";
import { defaultAiSettings } from "../src/providers/settings.ts";

export interface TestBuilder {
  url: string;
  deps: Deps;
  /** Whether the database has pgvector (PGlite does; the CI PostgreSQL does not). */
  hasVector: boolean;
  /** The PostgreSQL database's URL under TEST_DATABASE_URL (another process can connect), else undefined. */
  databaseUrl: string | undefined;
  /** The running app's scheduler: tests move a manual clock and call `runDue()`. */
  readonly scheduler: BuilderApp["scheduler"];
  /** The running app's run retention: tests call `pruneNow()`. */
  readonly runRetention: BuilderApp["runRetention"];
  /** The running app's workflow runner: tests move a manual clock and call `expireApprovals()`. */
  readonly runner: BuilderApp["runner"];
  /** fetch against the running builder, with JSON and the studio's Origin header filled in. */
  request(
    path: string,
    init?: RequestInit & { json?: unknown; cookie?: string; bearer?: string },
  ): Promise<Response>;
  /** Registers a user and returns its session cookie. */
  signUp(email?: string, password?: string): Promise<{ cookie: string; userId: string; email: string }>;
  /** Stops the app and its workers and starts a new one on the same port and database, as a process restart would. */
  restart(whileStopped?: () => Promise<void>): Promise<void>;
  stop(): Promise<void>;
}

let counter = 0;

/**
 * The real builder on a real port with a fresh database (PGlite, or PostgreSQL under TEST_DATABASE_URL).
 *
 * @example const builder = await startTestBuilder(); afterAll(() => builder.stop());
 */
export async function startTestBuilder(
  options: {
    env?: Record<string, string>;
    clock?: Clock;
    /** The builder's logger; by default one that logs nothing unless LOG_LEVEL is set. */
    logger?: Logger;
    deps?: Partial<
      Pick<
        Deps,
        | "ai"
        | "agentTools"
        | "workflowCapabilities"
        | "sandbox"
        | "generation"
        | "eventDelivery"
        | "mcp"
        | "ingestion"
        | "evaluations"
      >
    >;
  } = {},
): Promise<TestBuilder> {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), "builder-test-"));
  const config: BuilderConfig = loadConfig({
    PORT: String(port),
    DATA_DIR: dataDir,
    SECRET_KEY: "test-secret-key-that-is-long-enough-0123456789",
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    ...options.env,
  });
  const database = await createTestDatabase({ schema, migrationsFolder: builderMigrationsFolder });
  const clock = options.clock ?? systemClock;
  const search = knowledgeSearch({ db: database.db, clock, config });
  const deps: Deps = {
    db: database.db,
    clock,
    logger:
      options.logger ?? createLogger({ service: "builder-test", level: process.env.LOG_LEVEL ?? "silent" }),
    config,
    ai: options.deps?.ai ?? defaultAiSettings,
    agentTools: { knowledge: search, ...options.deps?.agentTools },
    workflowCapabilities: {
      knowledge: search,
      ...options.deps?.workflowCapabilities,
    },
    ...(options.deps?.sandbox ? { sandbox: options.deps.sandbox } : {}),
    ...(options.deps?.generation ? { generation: options.deps.generation } : {}),
    ...(options.deps?.eventDelivery ? { eventDelivery: options.deps.eventDelivery } : {}),
    ...(options.deps?.mcp ? { mcp: options.deps.mcp } : {}),
    ...(options.deps?.ingestion ? { ingestion: options.deps.ingestion } : {}),
    ...(options.deps?.evaluations ? { evaluations: options.deps.evaluations } : {}),
  };
  let builder = createBuilderApp(deps);
  await builder.start();
  let server = await listen(builder.app.fetch, { port, hostname: "127.0.0.1" });

  let conformance: Promise<ReturnType<typeof openApiConformance>> | undefined;
  const request: TestBuilder["request"] = async (path, init = {}) => {
    const headers = new Headers(init.headers);
    if (!headers.has("origin")) headers.set("origin", server.url);
    if (init.cookie) headers.set("cookie", init.cookie);
    if (init.bearer) headers.set("authorization", `Bearer ${init.bearer}`);
    let body = init.body;
    if (init.json !== undefined) {
      headers.set("content-type", "application/json");
      body = JSON.stringify(init.json);
    }
    const response = await fetch(`${server.url}${path}`, { ...init, headers, body: body ?? null });
    // Every response a test sees must be one the OpenAPI document describes (status and body).
    conformance ??= fetch(`${server.url}/api/openapi.json`).then(async (document) =>
      openApiConformance((await document.json()) as OpenApiDocument),
    );
    const problem = await (await conformance)(init.method ?? "GET", path, response);
    if (problem) throw new Error(`The OpenAPI document does not describe this answer: ${problem}`);
    return response;
  };

  return {
    url: server.url,
    deps,
    hasVector: database.hasVector,
    databaseUrl: database.url,
    get scheduler() {
      return builder.scheduler;
    },
    get runRetention() {
      return builder.runRetention;
    },
    get runner() {
      return builder.runner;
    },
    request,
    async signUp(email, password = "correct horse battery") {
      counter += 1;
      const address = email ?? `user${counter}-${Date.now()}@example.com`;
      const response = await request("/api/auth/sign-up/email", {
        method: "POST",
        json: { email: address, password, name: `User ${counter}` },
      });
      if (response.status !== 200)
        throw new Error(`sign-up failed: ${response.status} ${await response.text()}`);
      const body = (await response.json()) as { user: { id: string } };
      return { cookie: sessionCookie(response), userId: body.user.id, email: address };
    },
    async restart(whileStopped) {
      await server.close();
      await builder.stop();
      await whileStopped?.();
      builder = createBuilderApp(deps);
      await builder.start();
      server = await listen(builder.app.fetch, { port, hostname: "127.0.0.1" });
    },
    async stop() {
      await server.close();
      await builder.stop();
      await database.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The `name=value` of the session cookie a response sets. */
export function sessionCookie(response: Response): string {
  const cookie = response.headers
    .getSetCookie()
    .find((value) => value.startsWith("better-auth.session_token="));
  if (!cookie) throw new Error("no session cookie in the response");
  return cookie.split(";")[0] ?? "";
}
