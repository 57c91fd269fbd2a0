import type { Clock } from "@app/core";
import { eq } from "drizzle-orm";
import { findUser } from "../auth/users.ts";
import type { BuilderDb } from "../db/index.ts";
import { WorkspaceErrors } from "./errors.ts";
import { getWorkspace } from "./get-workspace.ts";
import { invitationStatus } from "./invitation-json.ts";
import { workspaceInvitations } from "./schema.ts";

/**
 * An invitation as the invitee's page shows it. Anyone signed in who has the link may look (the id
 * is the secret the e-mail carried); only the invited address may accept.
 */
export async function receivedInvitation(deps: { db: BuilderDb; clock: Clock }, id: string, userId: string) {
  const [row] = await deps.db
    .select()
    .from(workspaceInvitations)
    .where(eq(workspaceInvitations.id, id))
    .limit(1);
  if (!row) throw WorkspaceErrors.INVITATION_NOT_FOUND();
  const [workspace, inviter, me] = await Promise.all([
    getWorkspace(deps.db, row.workspaceId),
    row.invitedByUserId ? findUser(deps.db, row.invitedByUserId) : undefined,
    findUser(deps.db, userId),
  ]);
  if (!workspace) throw WorkspaceErrors.INVITATION_NOT_FOUND();
  return {
    row,
    json: {
      id: row.id,
      email: row.email,
      role: row.role as "admin" | "editor" | "viewer",
      status: invitationStatus(row, deps.clock.now()),
      workspace: { id: workspace.id, name: workspace.name },
      invited_by_name: inviter?.name ?? null,
      expires_at: row.expiresAt.toISOString(),
      is_for_you: me?.email.toLowerCase() === row.email.toLowerCase(),
    },
  };
}
