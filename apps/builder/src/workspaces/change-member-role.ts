import { and, eq } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import { WorkspaceErrors } from "./errors.ts";
import type { AssignableRole } from "./roles.ts";
import { workspaceMembers } from "./schema.ts";

/** Gives a member another role; the owner's changes only by transfer. */
export async function changeMemberRole(
  db: BuilderDb,
  workspaceId: string,
  userId: string,
  role: AssignableRole,
): Promise<void> {
  const where = and(eq(workspaceMembers.workspaceId, workspaceId), eq(workspaceMembers.userId, userId));
  const [member] = await db.select({ role: workspaceMembers.role }).from(workspaceMembers).where(where);
  if (!member) throw WorkspaceErrors.MEMBER_NOT_FOUND({ param: "user_id" });
  if (member.role === "owner") throw WorkspaceErrors.OWNER_ROLE_FIXED();
  await db.update(workspaceMembers).set({ role }).where(where);
}
