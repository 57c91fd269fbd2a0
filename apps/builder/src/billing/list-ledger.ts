import { newestFirst, type PageRequest } from "@app/db";
import { and, eq } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import { creditLedger } from "./schema.ts";

/**
 * The workspace's ledger, newest first; fetches `limit + 1` rows for the list envelope.
 *
 * @example const rows = await listLedger(db, workspaceId, { limit: 20 });
 */
export function listLedger(db: BuilderDb, workspaceId: string, page: PageRequest) {
  const newest = newestFirst(creditLedger.id, page);
  return db
    .select()
    .from(creditLedger)
    .where(and(eq(creditLedger.workspaceId, workspaceId), newest.olderThanCursor))
    .orderBy(newest.order)
    .limit(newest.limit);
}
