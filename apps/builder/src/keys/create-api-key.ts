import { type Clock, newId, newSecretToken, sha256Hex } from "@app/core";
import type { BuilderDb } from "../db/index.ts";
import type { Principal } from "../env.ts";
import type { ApiKeyRow } from "./schema.ts";
import { apiKeys } from "./schema.ts";

/** Every key starts `bk_`: a presented token without it is refused before any lookup. */
export const KEY_PREFIX = "bk";

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
