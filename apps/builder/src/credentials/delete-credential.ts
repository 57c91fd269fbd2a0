import { and, eq } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import { credentials } from "./schema.ts";

/**
 * Deletes the credential; false when the workspace has none with this id.
 *
 * @example if (!(await deleteCredential(db, workspaceId, id))) throw CredentialErrors.CREDENTIAL_NOT_FOUND();
 */
export async function deleteCredential(db: BuilderDb, workspaceId: string, id: string): Promise<boolean> {
  const deleted = await db
    .delete(credentials)
    .where(and(eq(credentials.id, id), eq(credentials.workspaceId, workspaceId)))
    .returning({ id: credentials.id });
  return deleted.length > 0;
}
