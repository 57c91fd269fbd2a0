import { and, eq } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import { WorkspaceErrors } from "./errors.ts";
import { workspaceInvitations } from "./schema.ts";

/** Deletes an invitation of the workspace: its link stops working. */
export async function revokeInvitation(db: BuilderDb, workspaceId: string, id: string): Promise<void> {
  const deleted = await db
    .delete(workspaceInvitations)
    .where(and(eq(workspaceInvitations.id, id), eq(workspaceInvitations.workspaceId, workspaceId)))
    .returning({ id: workspaceInvitations.id });
  if (deleted.length === 0) throw WorkspaceErrors.INVITATION_NOT_FOUND();
}
