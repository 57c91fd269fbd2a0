import { newestFirst, type PageRequest } from "@app/db";
import { and, eq } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import { credentials } from "./schema.ts";

/**
 * The workspace's credentials, newest first; fetches `limit + 1` rows for the list envelope.
 *
 * @example const rows = await listCredentials(db, workspaceId, { limit: 20 });
 */
export function listCredentials(db: BuilderDb, workspaceId: string, page: PageRequest) {
  const newest = newestFirst(credentials.id, page);
  return db
    .select()
    .from(credentials)
    .where(and(eq(credentials.workspaceId, workspaceId), newest.olderThanCursor))
    .orderBy(newest.order)
    .limit(newest.limit);
}
