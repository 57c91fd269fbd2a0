import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Clock, newSecretToken, systemClock } from "@app/core";
import { createTestDatabase } from "@app/db/testing";
import { createLogger, listen } from "@app/http";
import { type OpenApiDocument, openApiConformance } from "@app/http/testing";
import { freePort } from "@app/testing";
import type { DeliveryEngine, Sender } from "@app/webhooks";
import { createPaymentsApp } from "../src/app.ts";
import { loadPaymentsConfig } from "../src/config.ts";
import { paymentsMigrationsFolder, schema } from "../src/db/index.ts";
import { createPaymentsDeliveryEngine } from "../src/delivery.ts";
import type { Deps } from "../src/deps.ts";
import { createMerchant } from "../src/merchants/create-merchant.ts";

export interface TestPayments {
  url: string;
  /** The test database's URL on PostgreSQL (undefined on PGlite). */
  databaseUrl: string | undefined;
  deps: Deps;
  engine: DeliveryEngine;
  /** A test-mode and a live-mode key of one merchant. */
  testKey: string;
  liveKey: string;
  merchantId: string;
  /** fetch against the running service; `json` is sent as the body, `key` (default: the test key) as Bearer. */
  request(path: string, init?: RequestInit & { json?: unknown; key?: string | null }): Promise<Response>;
  /** Creates another merchant and returns its test key. */
  newMerchant(name?: string): Promise<{ merchantId: string; testKey: string; liveKey: string }>;
  stop(): Promise<void>;
}

/**
 * The real payment service on a real port with a fresh database (PGlite, or PostgreSQL under
 * TEST_DATABASE_URL). Deliveries and sweeps do not run on their own: tests call
 * `engine.runDue()` and `runSweeps(deps)` after moving their clock.
 *
 * @example const payments = await startTestPayments({ clock }); afterAll(() => payments.stop());
 */
export async function startTestPayments(
  options: { clock?: Clock; env?: Record<string, string>; send?: Sender; isEngineRunning?: boolean } = {},
): Promise<TestPayments> {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), "payments-test-"));
  const config = loadPaymentsConfig({
    PAYMENTS_PORT: String(port),
    DATA_DIR: dataDir,
    PAYMENTS_PUBLIC_URL: `http://127.0.0.1:${port}`,
    PAYMENTS_ALLOW_PRIVATE_WEBHOOKS: "1",
    ...options.env,
  });
  const database = await createTestDatabase({ schema, migrationsFolder: paymentsMigrationsFolder });
  const clock = options.clock ?? systemClock;
  const logger = createLogger({ service: "payments-test", level: process.env.LOG_LEVEL ?? "silent" });
  const base = { db: database.db, clock, logger, config };
  const engine = createPaymentsDeliveryEngine(base, options.send ? { send: options.send } : {});
  const deps: Deps = { ...base, deliveries: { wake: () => engine.wake() } };
  if (options.isEngineRunning) engine.start();
  const server = await listen(createPaymentsApp(deps).fetch, { port, hostname: "127.0.0.1" });

  const newMerchant = async (name = "Test merchant") => {
    const testKey = newSecretToken("sk_test");
    const liveKey = newSecretToken("sk_live");
    const { merchant } = await createMerchant(deps, { name, keys: [testKey, liveKey] });
    return { merchantId: merchant.id, testKey, liveKey };
  };
  const first = await newMerchant();

  let conformance: Promise<ReturnType<typeof openApiConformance>> | undefined;
  const request: TestPayments["request"] = async (path, init = {}) => {
    const headers = new Headers(init.headers);
    const key = init.key === undefined ? first.testKey : init.key;
    if (key !== null) headers.set("authorization", `Bearer ${key}`);
    let body = init.body;
    if (init.json !== undefined) {
      headers.set("content-type", "application/json");
      body = JSON.stringify(init.json);
    }
    const response = await fetch(`${server.url}${path}`, {
      ...init,
      headers,
      body: body ?? null,
      redirect: "manual",
    });
    // Every response a test sees must be one the OpenAPI document describes (status and body).
    conformance ??= fetch(`${server.url}/v1/openapi.json`).then(async (document) =>
      openApiConformance((await document.json()) as OpenApiDocument),
    );
    const problem = await (await conformance)(init.method ?? "GET", path, response);
    if (problem) throw new Error(`The OpenAPI document does not describe this answer: ${problem}`);
    return response;
  };

  return {
    url: server.url,
    databaseUrl: database.url,
    deps,
    engine,
    ...first,
    request,
    newMerchant,
    async stop() {
      await server.close();
      await engine.stop();
      await database.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The JSON body of a response, typed loosely for assertions. */
export async function json<T = Record<string, unknown>>(response: Response): Promise<T> {
  return (await response.json()) as T;
}
