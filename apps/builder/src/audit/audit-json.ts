import type { AuditLogRow } from "./schema.ts";

export function toAuditJson(row: AuditLogRow) {
  return {
    id: row.id,
    action: row.action,
    actor: { user_id: row.actorUserId, email: row.actorEmail, via: row.via },
    target_id: row.targetId,
    details: row.details,
    request_id: row.requestId,
    created_at: row.createdAt.toISOString(),
  };
}
