import { type Clock, newId } from "@app/core";
import { and, eq, isNull } from "drizzle-orm";
import { consumeRateLimit } from "../auth/rate-limit.ts";
import { findUser } from "../auth/users.ts";
import type { BuilderDb } from "../db/index.ts";
import type { Mailer } from "../mail/mailer.ts";
import { invitationMessage } from "../mail/templates.ts";
import { WorkspaceErrors } from "./errors.ts";
import { getWorkspace } from "./get-workspace.ts";
import { INVITATION_DAYS, invitationUrl } from "./invitation-json.ts";
import { listMembers } from "./list-members.ts";
import type { AssignableRole } from "./roles.ts";
import { type WorkspaceInvitationRow, workspaceInvitations } from "./schema.ts";

/**
 * Invitations one person may send an hour, across workspaces: anyone can create a workspace and so
 * invite, and each invitation is an e-mail from this server to an address of their choosing.
 */
export const INVITATIONS_PER_HOUR = 30;

/**
 * Invites an address to the workspace and sends the e-mail (queued: the answer does not wait for the
 * mail server). A pending invitation of the same address is replaced, so asking again sends a fresh link.
 */
export async function createInvitation(
  deps: { db: BuilderDb; clock: Clock; mailer: Mailer; publicUrl: string },
  workspaceId: string,
  inviterUserId: string,
  input: { email: string; role: AssignableRole },
): Promise<WorkspaceInvitationRow> {
  const { db, clock } = deps;
  const limit = await consumeRateLimit(
    db,
    `invite:${inviterUserId}`,
    { max: INVITATIONS_PER_HOUR, windowMs: 3_600_000 },
    clock.now(),
  );
  if (!limit.isAllowed)
    throw WorkspaceErrors.TOO_MANY_INVITATIONS({
      headers: { "Retry-After": String(limit.retryAfterSeconds) },
    });
  const members = await listMembers(db, workspaceId);
  if (members.some((member) => member.email === input.email))
    throw WorkspaceErrors.ALREADY_MEMBER({ param: "email" });
  const now = clock.now();
  const row = await db.transaction(async (tx) => {
    await tx
      .delete(workspaceInvitations)
      .where(
        and(
          eq(workspaceInvitations.workspaceId, workspaceId),
          eq(workspaceInvitations.email, input.email),
          isNull(workspaceInvitations.acceptedAt),
        ),
      );
    const [inserted] = await tx
      .insert(workspaceInvitations)
      .values({
        id: newId("inv", now.getTime()),
        workspaceId,
        email: input.email,
        role: input.role,
        invitedByUserId: inviterUserId,
        createdAt: now,
        expiresAt: new Date(now.getTime() + INVITATION_DAYS * 86_400_000),
      })
      .returning();
    if (!inserted) throw new Error("insert returned no row");
    return inserted;
  });
  const [workspace, inviter] = await Promise.all([
    getWorkspace(db, workspaceId),
    findUser(db, inviterUserId),
  ]);
  deps.mailer.send(
    invitationMessage(
      input.email,
      {
        workspaceName: workspace?.name ?? "a workspace",
        inviterName: inviter?.name ?? "Someone",
        role: input.role,
        expiresInDays: INVITATION_DAYS,
      },
      invitationUrl(deps.publicUrl, row.id),
    ),
  );
  return row;
}
