import { type Clock, newId, newSecretToken, sha256Hex } from "@app/core";
import { newestFirst } from "@app/db";
import { and, eq } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import type { Principal } from "../env.ts";
import type { ApiKeyRow } from "./schema.ts";
import { apiKeys } from "./schema.ts";

const KEY_PREFIX = "bk";
/** Writing `last_used_at` on every request would turn reads into writes; once a minute is enough. */
const LAST_USED_RESOLUTION_MS = 60_000;

/** Creates a key and returns it in full once; only its hash is stored. */
export async function createApiKey(
  { db, clock }: { db: BuilderDb; clock: Clock },
  principal: Principal,
  input: { name: string; expiresInDays?: number | undefined },
): Promise<{ row: ApiKeyRow; key: string }> {
  const key = newSecretToken(KEY_PREFIX);
  const now = clock.now();
  const [row] = await db
    .insert(apiKeys)
    .values({
      id: newId("key", now.getTime()),
      workspaceId: principal.workspaceId,
      userId: principal.userId,
      name: input.name,
      prefix: key.slice(0, KEY_PREFIX.length + 7),
      keyHash: sha256Hex(key),
      createdAt: now,
      expiresAt: input.expiresInDays ? new Date(now.getTime() + input.expiresInDays * 86_400_000) : null,
    })
    .returning();
  if (!row) throw new Error("insert returned no row");
  return { row, key };
}

export async function listApiKeys(
  db: BuilderDb,
  workspaceId: string,
  page: { limit: number; cursor?: string },
) {
  const newest = newestFirst(apiKeys.id, page);
  return db
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.workspaceId, workspaceId), newest.olderThanCursor))
    .orderBy(newest.order)
    .limit(newest.limit);
}

/** Deletes the key; answers its hash, or undefined when the workspace has no such key. */
export async function revokeApiKey(
  db: BuilderDb,
  workspaceId: string,
  id: string,
): Promise<string | undefined> {
  const [deleted] = await db
    .delete(apiKeys)
    .where(and(eq(apiKeys.id, id), eq(apiKeys.workspaceId, workspaceId)))
    .returning({ keyHash: apiKeys.keyHash });
  return deleted?.keyHash;
}

/** The principal a presented key stands for, or null when it is unknown or expired. */
export async function authenticateApiKey(
  { db, clock }: { db: BuilderDb; clock: Clock },
  presented: string,
): Promise<Principal | null> {
  if (!presented.startsWith(`${KEY_PREFIX}_`) || presented.length > 200) return null;
  // Lookup by the hash of the whole key: equality on a digest leaks nothing useful through timing.
  const [row] = await db
    .select()
    .from(apiKeys)
    .where(eq(apiKeys.keyHash, sha256Hex(presented)))
    .limit(1);
  if (!row) return null;
  const now = clock.now();
  if (row.expiresAt && row.expiresAt <= now) return null;
  if (!row.lastUsedAt || now.getTime() - row.lastUsedAt.getTime() > LAST_USED_RESOLUTION_MS) {
    await db.update(apiKeys).set({ lastUsedAt: now }).where(eq(apiKeys.id, row.id));
  }
  return { userId: row.userId, workspaceId: row.workspaceId, via: "api_key" };
}
