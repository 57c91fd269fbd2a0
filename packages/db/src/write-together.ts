import type { SQL, SQLWrapper } from "drizzle-orm";
import { sql } from "drizzle-orm";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";

type AnyDb = PgDatabase<PgQueryResultHKT, Record<string, unknown>>;

/**
 * Runs several writes as one statement: each becomes a data-modifying CTE, so they commit together
 * (one statement is its own transaction) in one round trip instead of a BEGIN, one round trip per
 * write and a COMMIT. Every write sees the database as it was before the statement, so none may
 * read what another writes; foreign keys are checked at the end, as in a transaction.
 *
 * @example await writeTogether(db, [db.insert(messages).values(rows), db.update(conversations).set({ updatedAt }).where(eq(conversations.id, id))]);
 */
export async function writeTogether(db: AnyDb, writes: readonly SQLWrapper[]): Promise<void> {
  if (writes.length === 0) return;
  await db.execute(statementOf(writes));
}

function statementOf(writes: readonly SQLWrapper[]): SQL {
  const ctes = writes.map((write, i) => sql`${sql.raw(`write_${i}`)} as (${write.getSQL()})`);
  return sql`with ${sql.join(ctes, sql`, `)} select 1`;
}
