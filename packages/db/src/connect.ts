import { mkdirSync } from "node:fs";
import { basename, dirname } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { vector } from "@electric-sql/pglite-pgvector";
import { drizzle as drizzlePostgres } from "drizzle-orm/node-postgres";
import { migrate as migratePostgres } from "drizzle-orm/node-postgres/migrator";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import pg from "pg";
import { withStatementSpans } from "./statement-spans.ts";
import { withNamedStatements } from "./statements.ts";

/** One Drizzle interface over both drivers: feature code never knows which one it runs on. */
export type Db<TSchema extends Record<string, unknown>> = PgDatabase<PgQueryResultHKT, TSchema>;

export type DatabaseKind = "pglite" | "postgres";

export interface Database<TSchema extends Record<string, unknown>> {
  db: Db<TSchema>;
  kind: DatabaseKind;
  /** Whether the pgvector extension can be used on this database. */
  hasVector: boolean;
  close(): Promise<void>;
}

export interface OpenDatabaseOptions<TSchema extends Record<string, unknown>> {
  /** A PostgreSQL connection string; when absent the embedded PGlite is used. */
  url?: string | undefined;
  /** PGlite's data directory; absent means in memory (tests). Ignored with `url`. */
  dataDir?: string | undefined;
  /**
   * PGlite's page cache (PostgreSQL's `shared_buffers`) in megabytes; PGlite's own 128 MB when
   * absent. Ignored with `url`. PGlite touches the whole cache when it starts, so it is resident
   * memory from the first second.
   */
  cacheMegabytes?: number | undefined;
  schema: TSchema;
  /** drizzle-kit's output folder; applied before the handle is returned. */
  migrationsFolder: string;
  /** node-postgres pool size. */
  poolSize?: number;
}

/**
 * Opens the service's database and applies its migrations.
 *
 * @example
 * const { db, close } = await openDatabase({ url: process.env.DATABASE_URL, dataDir: "./data/builder", schema, migrationsFolder });
 */
export async function openDatabase<TSchema extends Record<string, unknown>>(
  options: OpenDatabaseOptions<TSchema>,
): Promise<Database<TSchema>> {
  if (options.url) return openPostgres(options.url, options);
  return openPglite(options);
}

async function openPglite<TSchema extends Record<string, unknown>>(
  options: OpenDatabaseOptions<TSchema>,
): Promise<Database<TSchema>> {
  if (options.dataDir) mkdirSync(options.dataDir, { recursive: true });
  const client = await PGlite.create(options.dataDir, {
    extensions: { vector },
    // On the command line: PGlite's `postgresqlconf` option would replace the whole
    // postgresql.conf that initdb wrote (time zone, text search configuration) with its lines.
    ...(options.cacheMegabytes
      ? {
          startParams: [
            ...PGlite.defaultStartParams,
            "-c",
            `shared_buffers=${Math.trunc(options.cacheMegabytes)}MB`,
          ],
        }
      : {}),
  });
  const db = drizzlePglite({
    client: withStatementSpans(withNamedStatements(client), serviceOf(options.migrationsFolder)),
    schema: options.schema,
  });
  await migratePglite(db, { migrationsFolder: options.migrationsFolder });
  return {
    db: db as unknown as Db<TSchema>,
    kind: "pglite",
    hasVector: true,
    close: () => client.close(),
  };
}

async function openPostgres<TSchema extends Record<string, unknown>>(
  url: string,
  options: OpenDatabaseOptions<TSchema>,
): Promise<Database<TSchema>> {
  const pool = new pg.Pool({ connectionString: url, max: options.poolSize ?? 10 });
  // An idle client whose server connection dies (restart, failover, a dropped database) makes the
  // pool emit "error"; unhandled, that would crash the process. The pool has already discarded the
  // client and the next query reconnects, so it is reported, not fatal.
  pool.on("error", (error: Error & { code?: string }) => {
    if (error.code === "57P01") return; // terminated by an administrator command: expected at shutdown
    process.emitWarning(`idle PostgreSQL connection lost: ${error.message}`);
  });
  try {
    const available = await pool.query<{ count: string }>(
      "select count(*)::text as count from pg_available_extensions where name = 'vector'",
    );
    const db = drizzlePostgres({
      client: withStatementSpans(pool, serviceOf(options.migrationsFolder)),
      schema: options.schema,
    });
    await whileHoldingMigrationLock(url, options.migrationsFolder, () =>
      migratePostgres(db, { migrationsFolder: options.migrationsFolder }),
    );
    return {
      db: db as unknown as Db<TSchema>,
      kind: "postgres",
      hasVector: available.rows[0]?.count !== "0",
      close: () => pool.end(),
    };
  } catch (error) {
    await pool.end();
    throw error;
  }
}

/**
 * Several processes may start at once (a cluster's workers, replicas, a separate worker process)
 * and each applies migrations; without a lock two of them run the same `create table` and one
 * fails. The session-level advisory lock, keyed by the migrations folder, lets one apply them
 * while the others wait and then find nothing left to do.
 */
async function whileHoldingMigrationLock<T>(url: string, migrationsFolder: string, work: () => Promise<T>) {
  // A connection of its own, not the pool's: with a pool of one, migrating would wait for the lock's.
  const lockHolder = new pg.Client({ connectionString: url });
  await lockHolder.connect();
  try {
    // Keyed by the service's folder name, not the full path: two checkouts share one database's lock.
    const key = `migrations:${serviceOf(migrationsFolder)}`;
    await lockHolder.query("select pg_advisory_lock(hashtextextended($1, 0))", [key]);
    return await work();
  } finally {
    await lockHolder.end().catch(() => undefined);
  }
}

/** The service a database belongs to, from its migrations folder (`apps/<service>/drizzle`). */
function serviceOf(migrationsFolder: string): string {
  return basename(dirname(migrationsFolder));
}
