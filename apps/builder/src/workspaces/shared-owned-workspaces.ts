import { and, eq, ne, sql } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import { workspaceMembers, workspaces } from "./schema.ts";

/** The workspaces the user owns that have other members: they must change hands before the account can go. */
export async function sharedOwnedWorkspaces(
  db: BuilderDb,
  userId: string,
): Promise<{ id: string; name: string }[]> {
  return db
    .select({ id: workspaces.id, name: workspaces.name })
    .from(workspaces)
    .where(
      and(
        eq(workspaces.ownerUserId, userId),
        sql`exists (select 1 from ${workspaceMembers} where ${workspaceMembers.workspaceId} = ${workspaces.id} and ${ne(workspaceMembers.userId, userId)})`,
      ),
    );
}
