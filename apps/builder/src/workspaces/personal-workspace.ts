import { newId } from "@app/core";
import { eq } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import { workspaces } from "./schema.ts";

/**
 * The id of the user's personal workspace, created on first use; concurrent first
 * requests race on the unique owner column and all read the one row that won.
 */
export async function personalWorkspaceId(
  db: BuilderDb,
  user: { id: string; name: string },
): Promise<string> {
  const existing = await db
    .select({ id: workspaces.id })
    .from(workspaces)
    .where(eq(workspaces.ownerUserId, user.id))
    .limit(1);
  if (existing[0]) return existing[0].id;
  await db
    .insert(workspaces)
    .values({ id: newId("wsp"), ownerUserId: user.id, name: `${user.name}'s workspace` })
    .onConflictDoNothing({ target: workspaces.ownerUserId });
  const created = await db
    .select({ id: workspaces.id })
    .from(workspaces)
    .where(eq(workspaces.ownerUserId, user.id))
    .limit(1);
  if (!created[0]) throw new Error(`personal workspace for ${user.id} could not be created`);
  return created[0].id;
}
