import { systemClock } from "@app/core";
import { createLogger, listen, type RunningServer } from "@app/http";
import { createBuilderApp } from "./app.ts";
import type { BuilderConfig } from "./config.ts";
import { openBuilderDatabase } from "./db/index.ts";
import type { Deps } from "./deps.ts";
import { knowledgeSearch } from "./knowledge/knowledge-ports.ts";
import { defaultAiSettings } from "./providers/settings.ts";
import { openSandbox } from "./sandbox/open-sandbox.ts";
import { describeStorage, openStorage } from "./storage/open-storage.ts";

export interface RunningBuilder {
  server: RunningServer;
  deps: Deps;
  stop(): Promise<void>;
}

/**
 * Opens the database, builds the app and listens: the whole builder in one call (used by
 * `server.ts`, the tests and the benchmarks alike).
 */
export async function startBuilder(
  config: BuilderConfig,
  overrides: Partial<Pick<Deps, "clock" | "logger">> & { hostname?: string } = {},
): Promise<RunningBuilder> {
  const logger = overrides.logger ?? createLogger({ service: "builder", level: config.logLevel });
  // Before the database: a wrong bucket or key stops the start with the variable to fix.
  const storage = await openStorage(config.storage);
  const database = await openBuilderDatabase({
    url: config.databaseUrl,
    dataDir: `${config.dataDir}/builder/db`,
    cacheMegabytes: config.embeddedDbCacheMegabytes,
  });
  const sandbox = await openSandbox(logger, config.sandbox);
  const clock = overrides.clock ?? systemClock;
  const search = knowledgeSearch({ db: database.db, clock, config });
  const deps: Deps = {
    db: database.db,
    clock,
    logger,
    config,
    ai: defaultAiSettings,
    // Code and workflow tools are wired by createBuilderApp from the sandbox and its workflow runner.
    agentTools: { knowledge: search },
    workflowCapabilities: { knowledge: search },
    storage,
    ...(sandbox ? { sandbox } : {}),
    isSoleProcess: database.kind === "pglite",
  };
  const builder = createBuilderApp(deps);
  await builder.start();
  const server = await listen(builder.app.fetch, {
    port: config.port,
    ...(overrides.hostname ? { hostname: overrides.hostname } : {}),
  });
  logger.info(
    { url: server.url, database: database.kind, storage: describeStorage(config.storage) },
    "builder listening",
  );
  return {
    server,
    deps,
    // Drains, then lets go: requests and streams in flight finish (bounded), the workers stop and
    // give back what they claimed, and only then does the database close under them.
    stop: async () => {
      await server.close({ graceMs: config.shutdownGraceMs });
      await builder.stop();
      await sandbox?.close();
      await database.close();
    },
  };
}
