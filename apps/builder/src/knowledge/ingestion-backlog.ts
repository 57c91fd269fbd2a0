import { queryRows } from "@app/db";
import { sql } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";

/**
 * Documents whose ingestion has not finished (queued, parsing or embedding) across all workspaces,
 * and how long the oldest has waited, for `/metrics`. Served by the queue index (status first).
 *
 * @example const { count, oldestAgeSeconds } = await ingestionBacklog(db, clock.now());
 */
export async function ingestionBacklog(
  db: BuilderDb,
  now: Date,
): Promise<{ count: number; oldestAgeSeconds: number }> {
  const [row] = await queryRows<{ count: string; oldest: Date | string | null }>(
    db,
    sql`
      select count(*)::text as count, min(created_at) as oldest from knowledge_documents
      where status in ('queued', 'parsing', 'embedding')`,
  );
  const oldest = row?.oldest ? new Date(row.oldest).getTime() : now.getTime();
  return { count: Number(row?.count ?? 0), oldestAgeSeconds: Math.max(0, (now.getTime() - oldest) / 1000) };
}
