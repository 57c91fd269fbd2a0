import { newestFirst } from "@app/db";
import { and, eq } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import { apiKeys } from "./schema.ts";

export async function listApiKeys(
  db: BuilderDb,
  workspaceId: string,
  page: { limit: number; cursor?: string },
) {
  const newest = newestFirst(apiKeys.id, page);
  return db
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.workspaceId, workspaceId), newest.olderThanCursor))
    .orderBy(newest.order)
    .limit(newest.limit);
}
