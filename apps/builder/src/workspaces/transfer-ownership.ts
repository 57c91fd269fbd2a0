import { and, eq } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import { WorkspaceErrors } from "./errors.ts";
import { workspaceMembers, workspaces } from "./schema.ts";

/**
 * Makes a member the owner; the old owner stays on as an admin. A personal workspace stops being
 * personal (its old owner's default becomes another workspace of theirs).
 */
export async function transferOwnership(
  db: BuilderDb,
  workspaceId: string,
  fromUserId: string,
  toUserId: string,
): Promise<void> {
  await db.transaction(async (tx) => {
    const [target] = await tx
      .select({ role: workspaceMembers.role })
      .from(workspaceMembers)
      .where(and(eq(workspaceMembers.workspaceId, workspaceId), eq(workspaceMembers.userId, toUserId)));
    if (!target) throw WorkspaceErrors.MEMBER_NOT_FOUND({ param: "user_id" });
    if (toUserId === fromUserId) return;
    // The old owner first: the one-owner index would refuse two owners for a moment.
    await tx
      .update(workspaceMembers)
      .set({ role: "admin" })
      .where(and(eq(workspaceMembers.workspaceId, workspaceId), eq(workspaceMembers.userId, fromUserId)));
    await tx
      .update(workspaceMembers)
      .set({ role: "owner" })
      .where(and(eq(workspaceMembers.workspaceId, workspaceId), eq(workspaceMembers.userId, toUserId)));
    await tx
      .update(workspaces)
      .set({ ownerUserId: toUserId, isPersonal: false })
      .where(eq(workspaces.id, workspaceId));
  });
}
