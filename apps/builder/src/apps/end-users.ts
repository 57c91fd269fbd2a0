import { type Clock, newId } from "@app/core";
import { and, eq, inArray, lt, or } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import type { EndUserIdentity } from "./end-user-tokens.ts";
import { type AppRow, type EndUserRow, endUsers } from "./schema.ts";

/** `last_seen_at` is a rough activity mark: refreshing it once a minute keeps most requests read-only. */
const LAST_SEEN_RESOLUTION_MS = 60_000;

/**
 * The end user a verified identity stands for, created on first sight.
 *
 * @example const endUser = await resolveEndUser({ db, clock }, app, { kind: "customer", externalId: "user-42", name: "Ada" });
 */
export async function resolveEndUser(
  { db, clock }: { db: BuilderDb; clock: Clock },
  app: AppRow,
  identity: EndUserIdentity,
): Promise<EndUserRow> {
  const now = clock.now();
  const identityMatch = and(
    eq(endUsers.appId, app.id),
    eq(endUsers.kind, identity.kind),
    eq(endUsers.externalId, identity.externalId),
  );
  const [existing] = await db.select().from(endUsers).where(identityMatch).limit(1);
  if (existing) {
    const isStale = now.getTime() - existing.lastSeenAt.getTime() > LAST_SEEN_RESOLUTION_MS;
    const hasNewName = identity.name !== undefined && identity.name !== existing.name;
    if (!isStale && !hasNewName) return existing;
    await db
      .update(endUsers)
      .set({ lastSeenAt: now, ...(hasNewName ? { name: identity.name } : {}) })
      .where(and(eq(endUsers.id, existing.id), lt(endUsers.lastSeenAt, now)));
    return { ...existing, lastSeenAt: now, name: identity.name ?? existing.name };
  }
  // Two first requests at once: one insert wins, the other reads what it wrote.
  const [created] = await db
    .insert(endUsers)
    .values({
      id: newId("eu", now.getTime()),
      appId: app.id,
      workspaceId: app.workspaceId,
      kind: identity.kind,
      externalId: identity.externalId,
      name: identity.name ?? null,
      createdAt: now,
      lastSeenAt: now,
    })
    .onConflictDoNothing()
    .returning();
  if (created) return created;
  const [raced] = await db.select().from(endUsers).where(identityMatch).limit(1);
  if (!raced) throw new Error("end user vanished after a conflicting insert");
  return raced;
}

/**
 * The app's end users with these ids (for the team's view of conversations).
 *
 * @example const byId = await findEndUsers(db, app.id, ["eu_…"]);
 */
export async function findEndUsers(
  db: BuilderDb,
  appId: string,
  ids: string[],
): Promise<Map<string, EndUserRow>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .select()
    .from(endUsers)
    .where(and(eq(endUsers.appId, appId), inArray(endUsers.id, ids)));
  return new Map(rows.map((row) => [row.id, row]));
}

/**
 * The app's end user known by the id the team sees (`end_user_id`) or by the host site's own id.
 *
 * @example const endUser = await findEndUserByAnyId(db, app.id, "user-42");
 */
export async function findEndUserByAnyId(
  db: BuilderDb,
  appId: string,
  id: string,
): Promise<EndUserRow | undefined> {
  const [row] = await db
    .select()
    .from(endUsers)
    .where(and(eq(endUsers.appId, appId), or(eq(endUsers.id, id), eq(endUsers.externalId, id))))
    .limit(1);
  return row;
}

/**
 * The ids of the workspace's end users known as `id` (the id the team sees, or the host site's own
 * id), in `appId` only when given: the logs' `end_user` filter, across apps.
 *
 * @example const ids = await findEndUserIds(db, workspaceId, "user-42");
 */
export async function findEndUserIds(
  db: BuilderDb,
  workspaceId: string,
  id: string,
  appId?: string,
): Promise<string[]> {
  const rows = await db
    .select({ id: endUsers.id })
    .from(endUsers)
    .where(
      and(
        eq(endUsers.workspaceId, workspaceId),
        appId === undefined ? undefined : eq(endUsers.appId, appId),
        or(eq(endUsers.id, id), eq(endUsers.externalId, id)),
      ),
    )
    .limit(1000);
  return rows.map((row) => row.id);
}

/**
 * The workspace's end users with these ids, whatever their app (the logs' lists).
 *
 * @example const byId = await findWorkspaceEndUsers(db, workspaceId, ["eu_…"]);
 */
export async function findWorkspaceEndUsers(
  db: BuilderDb,
  workspaceId: string,
  ids: string[],
): Promise<Map<string, EndUserRow>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .select()
    .from(endUsers)
    .where(and(eq(endUsers.workspaceId, workspaceId), inArray(endUsers.id, ids)));
  return new Map(rows.map((row) => [row.id, row]));
}
