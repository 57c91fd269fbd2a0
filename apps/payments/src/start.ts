import { systemClock } from "@app/core";
import { embeddedCacheSize } from "@app/db";
import { createLogger, listen, type RunningServer } from "@app/http";
import { startTracing } from "@app/observability";
import type { DeliveryEngine } from "@app/webhooks";
import { createPaymentsApp } from "./app.ts";
import type { PaymentsConfig } from "./config.ts";
import { openPaymentsDatabase } from "./db/index.ts";
import { createPaymentsDeliveryEngine } from "./delivery.ts";
import type { Deps } from "./deps.ts";
import { startJobs } from "./jobs.ts";
import { ensureMerchantForKey } from "./merchants/ensure-merchant-for-key.ts";

export interface RunningPayments {
  server: RunningServer;
  deps: Deps;
  /** The in-process delivery engine, when this process delivers. */
  engine: DeliveryEngine | undefined;
  stop(): Promise<void>;
}

/** Opens the database, builds the app and listens: the whole payment service in one call. */
export async function startPayments(
  config: PaymentsConfig,
  overrides: Partial<Pick<Deps, "clock" | "logger">> = {},
): Promise<RunningPayments> {
  const logger = overrides.logger ?? createLogger({ service: "payments", level: config.logLevel });
  // First: spans of everything below need the tracer provider in place.
  const tracing = await startTracing({ service: "payments", endpoint: config.otlpEndpoint });
  const dataDir = `${config.dataDir}/db`;
  const databaseStartedAt = performance.now();
  const database = await openPaymentsDatabase({
    url: config.databaseUrl,
    dataDir,
    poolSize: config.dbPoolSize,
    // Sized from the data (PGlite's own default, 128 MB, is resident from the start): payments,
    // ledger rows and deliveries are read by key, so a small cache serves them.
    cacheMegabytes: config.databaseUrl
      ? undefined
      : embeddedCacheSize(dataDir, { min: 16, max: 128 }).megabytes,
  });
  const databaseMs = performance.now() - databaseStartedAt;
  const appStartedAt = performance.now();
  const clock = overrides.clock ?? systemClock;
  const base = { db: database.db, clock, logger, config };
  const engine = config.isInlineWorker ? createPaymentsDeliveryEngine(base) : undefined;
  const deps: Deps = { ...base, deliveries: { wake: () => engine?.wake() } };
  if (config.bootstrapSecretKey) await ensureMerchantForKey(deps, config.bootstrapSecretKey);
  engine?.start();
  const jobs = startJobs(deps);
  const server = await listen(createPaymentsApp(deps).fetch, { port: config.port });
  logger.info(
    {
      url: server.url,
      database: database.kind,
      inlineWorker: config.isInlineWorker,
      // Where the start went: ms since this process began, the database (open and migrations check), the rest.
      start_ms: {
        process: Math.round(performance.now()),
        database: Math.round(databaseMs),
        app: Math.round(performance.now() - appStartedAt),
      },
    },
    "payments listening",
  );
  return {
    server,
    deps,
    engine,
    // Drains, then lets go: requests in flight finish (bounded), deliveries in flight are recorded
    // (their leases released), and only then does the database close under them.
    stop: async () => {
      await server.close({ graceMs: config.shutdownGraceMs });
      await jobs.stop();
      await engine?.stop();
      await database.close();
      await tracing.shutdown();
    },
  };
}
