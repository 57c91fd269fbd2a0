import { asc, eq } from "drizzle-orm";
import { findUsers } from "../auth/users.ts";
import type { BuilderDb } from "../db/index.ts";
import { workspaceMembers } from "./schema.ts";

export async function listMembers(db: BuilderDb, workspaceId: string) {
  const rows = await db
    .select()
    .from(workspaceMembers)
    .where(eq(workspaceMembers.workspaceId, workspaceId))
    .orderBy(asc(workspaceMembers.createdAt), asc(workspaceMembers.userId));
  const users = await findUsers(
    db,
    rows.map((row) => row.userId),
  );
  return rows.map((row) => ({
    user_id: row.userId,
    name: users.get(row.userId)?.name ?? "",
    email: users.get(row.userId)?.email ?? "",
    role: row.role,
    joined_at: row.createdAt.toISOString(),
  }));
}
