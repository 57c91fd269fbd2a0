import { and, eq } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import { revokeMemberApiKeys } from "../keys/revoke-api-key.ts";
import { WorkspaceErrors } from "./errors.ts";
import { workspaceMembers } from "./schema.ts";

/**
 * Removes a member (never the owner) and revokes the API keys they made in the workspace; answers
 * the revoked keys' hashes so the caller can evict them from the credential cache.
 */
export async function removeMember(db: BuilderDb, workspaceId: string, userId: string): Promise<string[]> {
  return db.transaction(async (tx) => {
    const where = and(eq(workspaceMembers.workspaceId, workspaceId), eq(workspaceMembers.userId, userId));
    const [member] = await tx.select({ role: workspaceMembers.role }).from(workspaceMembers).where(where);
    if (!member) throw WorkspaceErrors.MEMBER_NOT_FOUND({ param: "user_id" });
    if (member.role === "owner") throw WorkspaceErrors.OWNER_ROLE_FIXED();
    await tx.delete(workspaceMembers).where(where);
    return revokeMemberApiKeys(tx, workspaceId, userId);
  });
}
