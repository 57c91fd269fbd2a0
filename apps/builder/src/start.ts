import { systemClock } from "@app/core";
import { embeddedCacheSize, recordHotSet } from "@app/db";
import { createLogger, listen, type RunningServer } from "@app/http";
import { startTracing } from "@app/observability";
import { getTableName } from "drizzle-orm";
import { createBuilderApp } from "./app.ts";
import type { BuilderConfig } from "./config.ts";
import { openBuilderDatabase } from "./db/index.ts";
import type { Deps } from "./deps.ts";
import { knowledgeSearch } from "./knowledge/knowledge-ports.ts";
import { knowledgeSearchTables } from "./knowledge/schema.ts";
import { defaultAiSettings } from "./providers/settings.ts";
import { openSandbox } from "./sandbox/open-sandbox.ts";
import { describeStorage, openStorage } from "./storage/open-storage.ts";

/** The automatic page cache stays within these bounds (MB); EMBEDDED_DB_CACHE_MB overrides it. */
const AUTO_CACHE_BOUNDS = { min: 16, max: 512 };

/**
 * The embedded database's page cache: EMBEDDED_DB_CACHE_MB when set, else sized from the data on
 * disk, so an empty installation holds tens of MB instead of 512 and a large one still gets its
 * vector indexes cached. Past the bound, the log says what to do.
 */
function builderCacheMegabytes(
  config: BuilderConfig,
  dataDir: string,
  logger: RunningBuilder["deps"]["logger"],
) {
  if (config.embeddedDbCacheMegabytes !== undefined) return config.embeddedDbCacheMegabytes;
  const cache = embeddedCacheSize(dataDir, AUTO_CACHE_BOUNDS);
  if (cache.isCapped) {
    logger.warn(
      { data_mb: cache.dataMegabytes, cache_mb: cache.megabytes },
      "the embedded database holds more than its largest automatic page cache: searches of large knowledge bases read from disk. Move to PostgreSQL (DATABASE_URL) or set EMBEDDED_DB_CACHE_MB (up to 1024)",
    );
  } else {
    logger.info(
      { data_mb: cache.dataMegabytes, cache_mb: cache.megabytes },
      "embedded database page cache sized from the data",
    );
  }
  return cache.megabytes;
}

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
  const startedAt = performance.now();
  const logger = overrides.logger ?? createLogger({ service: "builder", level: config.logLevel });
  // First: spans of everything below need the tracer provider in place.
  const tracing = await startTracing({ service: "builder", endpoint: config.otlpEndpoint });
  // Before the database: a wrong bucket or key stops the start with the variable to fix.
  const storage = await openStorage(config.storage);
  const dataDir = `${config.dataDir}/builder/db`;
  // The sandbox probes its toolchains while the database opens; its warm runners start once the
  // builder listens.
  let sandboxMs = 0;
  const sandboxOpening = openSandbox(logger, config.sandbox).finally(() => {
    sandboxMs = performance.now() - startedAt;
  });
  const databaseStartedAt = performance.now();
  let database: Awaited<ReturnType<typeof openBuilderDatabase>>;
  try {
    database = await openBuilderDatabase({
      url: config.databaseUrl,
      dataDir,
      cacheMegabytes: config.databaseUrl ? undefined : builderCacheMegabytes(config, dataDir, logger),
    });
  } catch (error) {
    await (await sandboxOpening)?.close();
    throw error;
  }
  const databaseMs = performance.now() - databaseStartedAt;
  // What the next start sizes the embedded page cache from; again at stop, after the day's ingestion.
  const recordSearchHotSet = async () => {
    if (database.kind !== "pglite") return;
    try {
      await recordHotSet(database.db, dataDir, knowledgeSearchTables.map(getTableName));
    } catch (error) {
      logger.warn(
        { err: error },
        "could not record the database's hot set; the next start sizes its cache from all data",
      );
    }
  };
  void recordSearchHotSet();
  const sandbox = await sandboxOpening;
  const appStartedAt = performance.now();
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
  if (sandbox?.runtimes().isAvailable) void sandbox.warmUp();
  logger.info(
    {
      url: server.url,
      database: database.kind,
      storage: describeStorage(config.storage),
      // Where the start went (ms since this process began, and by phase): the database opening and
      // migrations check run while the sandbox probes its host.
      start_ms: {
        process: Math.round(performance.now()),
        database: Math.round(databaseMs),
        sandbox: Math.round(sandboxMs),
        app: Math.round(performance.now() - appStartedAt),
      },
    },
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
      await recordSearchHotSet();
      await database.close();
      await tracing.shutdown();
    },
  };
}
