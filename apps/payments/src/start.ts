import { systemClock } from "@app/core";
import { createLogger, listen, type RunningServer } from "@app/http";
import type { DeliveryEngine } from "@app/webhooks";
import { createPaymentsApp } from "./app.ts";
import type { PaymentsConfig } from "./config.ts";
import { openPaymentsDatabase } from "./db/index.ts";
import { createPaymentsDeliveryEngine } from "./delivery.ts";
import type { Deps } from "./deps.ts";
import { startJobs } from "./jobs.ts";
import { ensureMerchantForKey } from "./merchants/merchants.ts";

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
  const database = await openPaymentsDatabase({
    url: config.databaseUrl,
    dataDir: `${config.dataDir}/db`,
    poolSize: config.dbPoolSize,
  });
  const clock = overrides.clock ?? systemClock;
  const base = { db: database.db, clock, logger, config };
  const engine = config.isInlineWorker ? createPaymentsDeliveryEngine(base) : undefined;
  const deps: Deps = { ...base, deliveries: { wake: () => engine?.wake() } };
  if (config.bootstrapSecretKey) await ensureMerchantForKey(deps, config.bootstrapSecretKey);
  engine?.start();
  const jobs = startJobs(deps);
  const server = await listen(createPaymentsApp(deps).fetch, { port: config.port });
  logger.info(
    { url: server.url, database: database.kind, inlineWorker: config.isInlineWorker },
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
    },
  };
}
