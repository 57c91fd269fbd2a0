import { type Clock, newId } from "@app/core";
import { and, asc, eq } from "drizzle-orm";
import { grantStarterCredits } from "../billing/grant-starter-credits.ts";
import type { BuilderConfig } from "../config.ts";
import type { BuilderDb } from "../db/index.ts";
import { workspaceMembers, workspaces } from "./schema.ts";

type PersonalDeps = { db: BuilderDb; clock: Clock; config: Pick<BuilderConfig, "billing"> };

/**
 * The workspace a signed-in request works in when it names none and its session has none active:
 * the user's personal workspace, else (it was handed over) the workspace they joined first, else a
 * new personal one. Only a personal workspace gets starter credits, once per account.
 */
export async function defaultWorkspaceId(
  deps: PersonalDeps,
  user: { id: string; name: string },
): Promise<string> {
  const [personal] = await deps.db
    .select({ id: workspaces.id })
    .from(workspaces)
    .where(and(eq(workspaces.ownerUserId, user.id), eq(workspaces.isPersonal, true)))
    .limit(1);
  if (personal) return personal.id;
  const [joined] = await deps.db
    .select({ id: workspaceMembers.workspaceId })
    .from(workspaceMembers)
    .where(eq(workspaceMembers.userId, user.id))
    .orderBy(asc(workspaceMembers.createdAt))
    .limit(1);
  if (joined) return joined.id;
  return personalWorkspaceId(deps, user);
}

/**
 * The id of the user's personal workspace, created on first use with its starter credits and its
 * owner as its first member; concurrent first requests race on the unique personal-owner index and
 * all read the one row that won.
 */
export async function personalWorkspaceId(
  deps: PersonalDeps,
  user: { id: string; name: string },
): Promise<string> {
  const { db } = deps;
  const findPersonal = () =>
    db
      .select({ id: workspaces.id })
      .from(workspaces)
      .where(and(eq(workspaces.ownerUserId, user.id), eq(workspaces.isPersonal, true)))
      .limit(1);
  const existing = await findPersonal();
  if (existing[0]) return existing[0].id;
  const created = await db.transaction(async (tx) => {
    const now = deps.clock.now();
    const [row] = await tx
      .insert(workspaces)
      .values({
        id: newId("wsp"),
        ownerUserId: user.id,
        isPersonal: true,
        name: `${user.name}'s workspace`,
        createdAt: now,
      })
      .onConflictDoNothing()
      .returning({ id: workspaces.id });
    if (!row) return undefined;
    await tx
      .insert(workspaceMembers)
      .values({ workspaceId: row.id, userId: user.id, role: "owner", createdAt: now });
    await grantStarterCredits({ db: tx, clock: deps.clock }, row.id, deps.config.billing.starterCredits);
    return row.id;
  });
  if (created) return created;
  const winner = await findPersonal();
  if (!winner[0]) throw new Error(`personal workspace for ${user.id} could not be created`);
  return winner[0].id;
}
