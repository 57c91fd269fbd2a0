import { type Clock, newId } from "@app/core";
import type { BuilderDb } from "../db/index.ts";
import { auditLog } from "./schema.ts";

export interface AuditEntry {
  workspaceId: string;
  actorUserId: string | null;
  actorEmail: string | null;
  via: "session" | "api_key" | "system";
  action: string;
  targetId: string | null;
  details: Record<string, unknown>;
  requestId: string | null;
}

/** Appends one entry to the workspace's audit log. */
export async function recordAudit(
  { db, clock }: { db: BuilderDb; clock: Clock },
  entry: AuditEntry,
): Promise<void> {
  const now = clock.now();
  await db.insert(auditLog).values({ id: newId("aud", now.getTime()), ...entry, createdAt: now });
}
