import { type Clock, sha256Hex } from "@app/core";
import { eq } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import type { Identity } from "../env.ts";
import { isRole } from "../workspaces/roles.ts";
import { KEY_PREFIX } from "./create-api-key.ts";
import { apiKeys } from "./schema.ts";

/** Writing `last_used_at` on every request would turn reads into writes; once a minute is enough. */
const LAST_USED_RESOLUTION_MS = 60_000;

/** Who a presented key stands for (its creator, its workspace and role), or null when it is unknown or expired. */
export async function authenticateApiKey(
  { db, clock }: { db: BuilderDb; clock: Clock },
  presented: string,
): Promise<Identity | null> {
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
  return {
    userId: row.userId,
    via: "api_key",
    defaultWorkspaceId: row.workspaceId,
    key: {
      workspaceId: row.workspaceId,
      role: isRole(row.role) && row.role !== "owner" ? row.role : "viewer",
    },
  };
}
