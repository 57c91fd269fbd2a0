import { systemClock } from "@app/core";
import { createLogger, listen, type RunningServer } from "@app/http";
import { createPaymentsApp } from "./app.ts";
import type { PaymentsConfig } from "./config.ts";
import { openPaymentsDatabase } from "./db/index.ts";
import type { Deps } from "./deps.ts";

export interface RunningPayments {
  server: RunningServer;
  deps: Deps;
  stop(): Promise<void>;
}

/** Opens the database, builds the app and listens: the whole payment service in one call. */
export async function startPayments(
  config: PaymentsConfig,
  overrides: Partial<Pick<Deps, "clock" | "logger">> = {},
): Promise<RunningPayments> {
  const logger = overrides.logger ?? createLogger({ service: "payments", level: config.logLevel });
  const database = await openPaymentsDatabase({ url: config.databaseUrl, dataDir: `${config.dataDir}/db` });
  const deps: Deps = { db: database.db, clock: overrides.clock ?? systemClock, logger, config };
  const server = await listen(createPaymentsApp(deps).fetch, { port: config.port });
  logger.info({ url: server.url, database: database.kind }, "payments listening");
  return {
    server,
    deps,
    stop: async () => {
      await server.close();
      await database.close();
    },
  };
}
