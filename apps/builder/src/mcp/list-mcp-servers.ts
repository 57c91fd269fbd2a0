import { newestFirst, type PageRequest } from "@app/db";
import { and, eq } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import { mcpServers } from "./schema.ts";

/**
 * Newest first; fetches `limit + 1` rows for the list envelope.
 *
 * @example const rows = await listMcpServers(db, "ws_1", { limit: 20 });
 */
export function listMcpServers(db: BuilderDb, workspaceId: string, page: PageRequest) {
  const newest = newestFirst(mcpServers.id, page);
  return db
    .select()
    .from(mcpServers)
    .where(and(eq(mcpServers.workspaceId, workspaceId), newest.olderThanCursor))
    .orderBy(newest.order)
    .limit(newest.limit);
}
