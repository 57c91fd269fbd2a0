import { eq } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import { WorkspaceErrors } from "./errors.ts";
import { workspaces } from "./schema.ts";

/**
 * Deletes a workspace with everything in it (the foreign keys cascade). A personal workspace goes
 * only with its owner's account.
 */
export async function deleteWorkspace(db: BuilderDb, id: string): Promise<void> {
  const [row] = await db
    .select({ isPersonal: workspaces.isPersonal })
    .from(workspaces)
    .where(eq(workspaces.id, id));
  if (!row) throw WorkspaceErrors.WORKSPACE_NOT_FOUND();
  if (row.isPersonal) throw WorkspaceErrors.PERSONAL_WORKSPACE();
  await db.delete(workspaces).where(eq(workspaces.id, id));
}
