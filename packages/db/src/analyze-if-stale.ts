import { sql } from "drizzle-orm";
import type { Db } from "./connect.ts";
import { queryRows } from "./statements.ts";

/**
 * Runs `ANALYZE` on those of `tables` that were never analyzed or changed by more than a fifth
 * since, and answers which. PGlite has no autovacuum, so without this its planner never learns a
 * table grew: a page of a million-row table read by `id > cursor ORDER BY id LIMIT n` was planned
 * as a bitmap scan of every remaining row and a sort (seconds a page) instead of an index range
 * (milliseconds). PostgreSQL's autovacuum would get there too, on its own schedule.
 *
 * @example await analyzeIfStale(db, ["messages", "conversations", "message_feedback"]);
 */
export async function analyzeIfStale(
  db: Db<Record<string, unknown>>,
  tables: readonly string[],
): Promise<string[]> {
  const rows = await queryRows<{ name: string; isStale: boolean }>(
    db,
    sql`select c.relname as name,
        (c.reltuples < 0 or coalesce(s.n_mod_since_analyze, 0) > greatest(c.reltuples, 0) * 0.2 + 500) as "isStale"
      from pg_class c left join pg_stat_user_tables s on s.relid = c.oid
      where c.relkind = 'r' and c.relnamespace = 'public'::regnamespace
        and c.relname in (${sql.join(
          tables.map((table) => sql`${table}`),
          sql`, `,
        )})`,
  );
  const stale = rows.filter((row) => row.isStale).map((row) => row.name);
  // Names come from pg_class (so they exist and need no quoting beyond this).
  if (stale.length > 0) await db.execute(sql.raw(`analyze ${stale.map((name) => `"${name}"`).join(", ")}`));
  return stale;
}
