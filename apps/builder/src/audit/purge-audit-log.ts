import type { Clock } from "@app/core";
import { lt } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import { auditLog } from "./schema.ts";

/** Deletes the entries older than the retention; answers how many went. Safe to run from every process. */
export async function purgeAuditLog(
  { db, clock }: { db: BuilderDb; clock: Clock },
  retentionDays: number,
): Promise<number> {
  const cutoff = new Date(clock.now().getTime() - retentionDays * 86_400_000);
  const deleted = await db
    .delete(auditLog)
    .where(lt(auditLog.createdAt, cutoff))
    .returning({ id: auditLog.id });
  return deleted.length;
}
