import { type Clock, newId } from "@app/core";
import type { BuilderDb } from "../db/index.ts";
import { type WorkspaceRow, workspaceMembers, workspaces } from "./schema.ts";

/**
 * A new workspace owned by the user. It starts without credits: starter credits come with the
 * personal workspace only, or each new workspace would be a way to mint them.
 */
export async function createWorkspace(
  { db, clock }: { db: BuilderDb; clock: Clock },
  userId: string,
  name: string,
): Promise<WorkspaceRow> {
  return db.transaction(async (tx) => {
    const now = clock.now();
    const [row] = await tx
      .insert(workspaces)
      .values({
        id: newId("wsp", now.getTime()),
        ownerUserId: userId,
        isPersonal: false,
        name,
        createdAt: now,
      })
      .returning();
    if (!row) throw new Error("insert returned no row");
    await tx.insert(workspaceMembers).values({ workspaceId: row.id, userId, role: "owner", createdAt: now });
    return row;
  });
}
