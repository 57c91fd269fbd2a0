import type { SQL } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";

/**
 * Runs raw SQL and answers its rows. Both drivers (PGlite and node-postgres) answer `{ rows }`,
 * but the driver-neutral Db type leaves the result `unknown`. Used where drizzle has no words
 * for the SQL: pgvector operators and casts, full-text ranking.
 *
 * @example const rows = await queryRows<{ id: string }>(db, sql`select id from knowledge_chunks`);
 */
export async function queryRows<Row>(db: Pick<BuilderDb, "execute">, query: SQL): Promise<Row[]> {
  const result = (await db.execute(query)) as unknown as { rows: Row[] };
  return result.rows;
}
