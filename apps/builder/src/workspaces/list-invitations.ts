import { newestFirst } from "@app/db";
import { and, eq } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import { workspaceInvitations } from "./schema.ts";

export async function listInvitations(
  db: BuilderDb,
  workspaceId: string,
  page: { limit: number; cursor?: string },
) {
  const newest = newestFirst(workspaceInvitations.id, page);
  return db
    .select()
    .from(workspaceInvitations)
    .where(and(eq(workspaceInvitations.workspaceId, workspaceId), newest.olderThanCursor))
    .orderBy(newest.order)
    .limit(newest.limit);
}
