import type { WorkspaceInvitationRow } from "./schema.ts";

export const INVITATION_DAYS = 7;

/** The studio page an invitation's e-mail links to. */
export function invitationUrl(publicUrl: string, id: string): string {
  return `${publicUrl}/invitations/${id}`;
}

export function invitationStatus(row: WorkspaceInvitationRow, now: Date): "pending" | "accepted" | "expired" {
  if (row.acceptedAt) return "accepted";
  return row.expiresAt <= now ? "expired" : "pending";
}

export function toInvitationJson(row: WorkspaceInvitationRow, context: { publicUrl: string; now: Date }) {
  return {
    id: row.id,
    email: row.email,
    role: row.role as "admin" | "editor" | "viewer",
    status: invitationStatus(row, context.now),
    url: invitationUrl(context.publicUrl, row.id),
    invited_by_user_id: row.invitedByUserId,
    created_at: row.createdAt.toISOString(),
    expires_at: row.expiresAt.toISOString(),
    accepted_at: row.acceptedAt?.toISOString() ?? null,
  };
}
