import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";

/**
 * Any Drizzle PostgreSQL handle or transaction (PGlite or node-postgres) whatever the app's schema:
 * the engine only touches its own tables.
 */
export type WebhooksDb = PgDatabase<PgQueryResultHKT, Record<string, unknown>>;
