import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";

/**
 * Any Drizzle PostgreSQL handle or transaction (PGlite or node-postgres) whatever the app's schema:
 * the engine only touches its own tables.
 */
export type WebhooksDb = PgDatabase<PgQueryResultHKT, Record<string, unknown>>;

/**
 * The rows of a raw `db.execute`, which both drivers return as `{ rows }`.
 *
 * @example const rows = rowsOf<{ id: string }>(await db.execute(sql`select id from events`));
 */
export function rowsOf<T>(result: unknown): T[] {
  return (result as { rows: T[] }).rows;
}
