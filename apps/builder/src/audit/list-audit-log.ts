import { newestFirst } from "@app/db";
import { and, eq, gte, type SQL } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import { auditLog } from "./schema.ts";

export async function listAuditLog(
  db: BuilderDb,
  workspaceId: string,
  page: { limit: number; cursor?: string | undefined; action?: string | undefined; since?: Date | undefined },
) {
  const newest = newestFirst(auditLog.id, page);
  const filters: (SQL | undefined)[] = [eq(auditLog.workspaceId, workspaceId), newest.olderThanCursor];
  if (page.action) filters.push(eq(auditLog.action, page.action));
  if (page.since) filters.push(gte(auditLog.createdAt, page.since));
  return db
    .select()
    .from(auditLog)
    .where(and(...filters))
    .orderBy(newest.order)
    .limit(newest.limit);
}
