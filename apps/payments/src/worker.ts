// `npm run worker -w apps/payments`: a delivery worker process against PAYMENTS_DATABASE_URL.
// Run as many as needed; they share the work through FOR UPDATE SKIP LOCKED and leases.
import { ConfigError, systemClock } from "@app/core";
import { createLogger, runService } from "@app/http";
import { loadPaymentsConfig } from "./config.ts";
import { openPaymentsDatabase } from "./db/index.ts";
import { createPaymentsDeliveryEngine } from "./delivery.ts";

await runService({
  name: "payments-worker",
  configure: () => {
    const config = loadPaymentsConfig(process.env);
    if (!config.databaseUrl) {
      throw new ConfigError(
        "PAYMENTS_DATABASE_URL is required: the embedded database delivers in the service process.",
      );
    }
    return { ...config, databaseUrl: config.databaseUrl };
  },
  start: async (config) => {
    const logger = createLogger({ service: "payments-worker", level: config.logLevel });
    const database = await openPaymentsDatabase({
      url: config.databaseUrl,
      dataDir: undefined,
      poolSize: config.dbPoolSize,
    });
    const engine = createPaymentsDeliveryEngine({ db: database.db, clock: systemClock, logger, config });
    engine.start();
    logger.info({ pid: process.pid }, "payments worker delivering");
    return {
      stop: async () => {
        await engine.stop();
        await database.close();
      },
    };
  },
});
