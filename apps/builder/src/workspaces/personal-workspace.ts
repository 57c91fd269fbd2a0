import { type Clock, newId } from "@app/core";
import { eq } from "drizzle-orm";
import { grantStarterCredits } from "../billing/grant-starter-credits.ts";
import type { BuilderConfig } from "../config.ts";
import type { BuilderDb } from "../db/index.ts";
import { workspaces } from "./schema.ts";

/**
 * The id of the user's personal workspace, created on first use with its starter credits;
 * concurrent first requests race on the unique owner column and all read the one row that won.
 */
export async function personalWorkspaceId(
  deps: { db: BuilderDb; clock: Clock; config: Pick<BuilderConfig, "billing"> },
  user: { id: string; name: string },
): Promise<string> {
  const { db } = deps;
  const existing = await db
    .select({ id: workspaces.id })
    .from(workspaces)
    .where(eq(workspaces.ownerUserId, user.id))
    .limit(1);
  if (existing[0]) return existing[0].id;
  const created = await db.transaction(async (tx) => {
    const [row] = await tx
      .insert(workspaces)
      .values({ id: newId("wsp"), ownerUserId: user.id, name: `${user.name}'s workspace` })
      .onConflictDoNothing({ target: workspaces.ownerUserId })
      .returning({ id: workspaces.id });
    if (row)
      await grantStarterCredits({ db: tx, clock: deps.clock }, row.id, deps.config.billing.starterCredits);
    return row?.id;
  });
  if (created) return created;
  const winner = await db
    .select({ id: workspaces.id })
    .from(workspaces)
    .where(eq(workspaces.ownerUserId, user.id))
    .limit(1);
  if (!winner[0]) throw new Error(`personal workspace for ${user.id} could not be created`);
  return winner[0].id;
}
