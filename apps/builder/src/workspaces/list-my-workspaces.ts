import { asc, eq } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import { isRole, type Role } from "./roles.ts";
import { type WorkspaceRow, workspaceMembers, workspaces } from "./schema.ts";

/** The workspaces the user is a member of, with their role, in the order they joined. */
export async function listMyWorkspaces(
  db: BuilderDb,
  userId: string,
): Promise<{ workspace: WorkspaceRow; role: Role }[]> {
  const rows = await db
    .select({ workspace: workspaces, role: workspaceMembers.role })
    .from(workspaceMembers)
    .innerJoin(workspaces, eq(workspaces.id, workspaceMembers.workspaceId))
    .where(eq(workspaceMembers.userId, userId))
    .orderBy(asc(workspaceMembers.createdAt), asc(workspaces.id));
  return rows.flatMap((row) => (isRole(row.role) ? [{ workspace: row.workspace, role: row.role }] : []));
}
