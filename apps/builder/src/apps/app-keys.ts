import { type Clock, newId, newSecretToken, sha256Hex } from "@app/core";
import { newestFirst, type PageRequest } from "@app/db";
import { and, eq } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import { type AppKeyRow, type AppRow, appKeys } from "./schema.ts";

/** Every app key starts `ak_`, so it is never mistaken for a workspace key (`bk_`) or a JWT. */
export const APP_KEY_PREFIX = "ak";

/** Writing `last_used_at` on every request would turn reads into writes; once a minute is enough. */
const LAST_USED_RESOLUTION_MS = 60_000;

/**
 * Creates a key of one app and returns it in full once; only its hash is stored.
 *
 * @example const { row, key } = await createAppKey({ db, clock }, app, "backend");
 */
export async function createAppKey(
  { db, clock }: { db: BuilderDb; clock: Clock },
  app: AppRow,
  name: string,
): Promise<{ row: AppKeyRow; key: string }> {
  const key = newSecretToken(APP_KEY_PREFIX);
  const now = clock.now();
  const [row] = await db
    .insert(appKeys)
    .values({
      id: newId("akey", now.getTime()),
      appId: app.id,
      workspaceId: app.workspaceId,
      name,
      prefix: key.slice(0, APP_KEY_PREFIX.length + 7),
      keyHash: sha256Hex(key),
      createdAt: now,
    })
    .returning();
  if (!row) throw new Error("insert returned no row");
  return { row, key };
}

/**
 * A page of an app's keys, newest first (`limit + 1` rows).
 *
 * @example const rows = await listAppKeys(db, app.id, { limit: 20 });
 */
export function listAppKeys(db: BuilderDb, appId: string, page: PageRequest): Promise<AppKeyRow[]> {
  const newest = newestFirst(appKeys.id, page);
  return db
    .select()
    .from(appKeys)
    .where(and(eq(appKeys.appId, appId), newest.olderThanCursor))
    .orderBy(newest.order)
    .limit(newest.limit);
}

/**
 * Revokes one of an app's keys; false when the app has no such key.
 *
 * @example const isRevoked = await revokeAppKey(db, app.id, keyId);
 */
export async function revokeAppKey(db: BuilderDb, appId: string, keyId: string): Promise<boolean> {
  const deleted = await db
    .delete(appKeys)
    .where(and(eq(appKeys.id, keyId), eq(appKeys.appId, appId)))
    .returning({ id: appKeys.id });
  return deleted.length > 0;
}

/**
 * Whether `presented` is a live key of this app (a key of another app is not).
 *
 * @example if (await isAppKeyOf({ db, clock }, app.id, token)) …
 */
export async function isAppKeyOf(
  { db, clock }: { db: BuilderDb; clock: Clock },
  appId: string,
  presented: string,
): Promise<boolean> {
  if (!presented.startsWith(`${APP_KEY_PREFIX}_`) || presented.length > 200) return false;
  // Lookup by the hash of the whole key: equality on a digest leaks nothing useful through timing.
  const [row] = await db
    .select()
    .from(appKeys)
    .where(and(eq(appKeys.keyHash, sha256Hex(presented)), eq(appKeys.appId, appId)))
    .limit(1);
  if (!row) return false;
  const now = clock.now();
  if (!row.lastUsedAt || now.getTime() - row.lastUsedAt.getTime() > LAST_USED_RESOLUTION_MS) {
    await db.update(appKeys).set({ lastUsedAt: now }).where(eq(appKeys.id, row.id));
  }
  return true;
}
