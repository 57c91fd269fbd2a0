import type { Clock } from "@app/core";
import { and, eq } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import { isRole, type Role } from "./roles.ts";
import { workspaceMembers } from "./schema.ts";

/** The user's role in the workspace, or null when they are not a member. */
export async function findMemberRole(
  db: BuilderDb,
  workspaceId: string,
  userId: string,
): Promise<Role | null> {
  const [row] = await db
    .select({ role: workspaceMembers.role })
    .from(workspaceMembers)
    .where(and(eq(workspaceMembers.workspaceId, workspaceId), eq(workspaceMembers.userId, userId)))
    .limit(1);
  return row && isRole(row.role) ? row.role : null;
}

/**
 * Remembers members' roles for a few seconds, as the principal cache remembers credentials: every
 * request needs its caller's role, and the embedded database serves one query at a time. Every
 * change of membership in this process evicts the entry at once (a removed member's next request is
 * refused); other processes notice within `ttlMs`.
 */
export class MembershipCache {
  private readonly entries = new Map<string, { role: Role | null; expiresAt: number }>();

  constructor(
    private readonly deps: { db: BuilderDb; clock: Clock },
    private readonly ttlMs = 5_000,
    private readonly maxEntries = 10_000,
  ) {}

  async role(workspaceId: string, userId: string): Promise<Role | null> {
    const key = `${workspaceId}:${userId}`;
    const now = this.deps.clock.now().getTime();
    const entry = this.entries.get(key);
    if (entry && entry.expiresAt > now) return entry.role;
    const role = await findMemberRole(this.deps.db, workspaceId, userId);
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(key, { role, expiresAt: now + this.ttlMs });
    return role;
  }

  forget(workspaceId: string, userId: string): void {
    this.entries.delete(`${workspaceId}:${userId}`);
  }

  forgetWorkspace(workspaceId: string): void {
    for (const key of this.entries.keys()) if (key.startsWith(`${workspaceId}:`)) this.entries.delete(key);
  }
}
