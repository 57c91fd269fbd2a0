import { queryRows } from "@app/db";
import { sql } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";

/**
 * Generations still in flight at Replicate (starting or processing), which the worker polls, and
 * how long the oldest has been running, for `/metrics`. Served by the poll index (status first).
 *
 * @example const { count, oldestAgeSeconds } = await pollingBacklog(db, clock.now());
 */
export async function pollingBacklog(
  db: BuilderDb,
  now: Date,
): Promise<{ count: number; oldestAgeSeconds: number }> {
  const [row] = await queryRows<{ count: string; oldest: Date | string | null }>(
    db,
    sql`
      select count(*)::text as count, min(created_at) as oldest from generations
      where status in ('starting', 'processing')`,
  );
  const oldest = row?.oldest ? new Date(row.oldest).getTime() : now.getTime();
  return { count: Number(row?.count ?? 0), oldestAgeSeconds: Math.max(0, (now.getTime() - oldest) / 1000) };
}
