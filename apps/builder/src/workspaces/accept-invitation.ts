import type { Clock } from "@app/core";
import { and, eq, isNull } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import { WorkspaceErrors } from "./errors.ts";
import { receivedInvitation } from "./received-invitation.ts";
import { workspaceInvitations, workspaceMembers } from "./schema.ts";

/**
 * Joins the invitation's workspace with its role, once, before it expires, and only as the invited
 * address; answers the workspace's id.
 */
export async function acceptInvitation(
  deps: { db: BuilderDb; clock: Clock },
  id: string,
  userId: string,
): Promise<string> {
  const { row, json } = await receivedInvitation(deps, id, userId);
  if (!json.is_for_you) throw WorkspaceErrors.INVITATION_FOR_ANOTHER_ADDRESS();
  if (json.status !== "pending") throw WorkspaceErrors.INVITATION_EXPIRED();
  const now = deps.clock.now();
  await deps.db.transaction(async (tx) => {
    // Claimed first, so two accepts at once make one member.
    const claimed = await tx
      .update(workspaceInvitations)
      .set({ acceptedAt: now, acceptedByUserId: userId })
      .where(and(eq(workspaceInvitations.id, id), isNull(workspaceInvitations.acceptedAt)))
      .returning({ id: workspaceInvitations.id });
    if (claimed.length === 0) throw WorkspaceErrors.INVITATION_EXPIRED();
    const joined = await tx
      .insert(workspaceMembers)
      .values({ workspaceId: row.workspaceId, userId, role: row.role, createdAt: now })
      .onConflictDoNothing()
      .returning({ userId: workspaceMembers.userId });
    if (joined.length === 0) throw WorkspaceErrors.ALREADY_MEMBER();
  });
  return row.workspaceId;
}
