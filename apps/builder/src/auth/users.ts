import { eq, inArray } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import { session, user } from "./schema.ts";

export type UserSummary = { id: string; name: string; email: string };

/** Names and addresses of users, for features that show people (members, invitations). */
export async function findUsers(db: BuilderDb, ids: readonly string[]): Promise<Map<string, UserSummary>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .select({ id: user.id, name: user.name, email: user.email })
    .from(user)
    .where(inArray(user.id, [...new Set(ids)]));
  return new Map(rows.map((row) => [row.id, row]));
}

export async function findUser(db: BuilderDb, id: string): Promise<UserSummary | undefined> {
  return (await findUsers(db, [id])).get(id);
}

/** Makes `workspaceId` the workspace the session works in when a request names none. */
export async function setActiveWorkspace(
  db: BuilderDb,
  sessionId: string,
  workspaceId: string,
): Promise<void> {
  await db.update(session).set({ activeWorkspaceId: workspaceId }).where(eq(session.id, sessionId));
}
