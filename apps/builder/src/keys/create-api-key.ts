import { type Clock, newId, newSecretToken, sha256Hex } from "@app/core";
import type { BuilderDb } from "../db/index.ts";
import type { Principal } from "../env.ts";
import { WorkspaceErrors } from "../workspaces/errors.ts";
import { type AssignableRole, isAtLeast } from "../workspaces/roles.ts";
import type { ApiKeyRow } from "./schema.ts";
import { apiKeys } from "./schema.ts";

/** Every key starts `bk_`: a presented token without it is refused before any lookup. */
export const KEY_PREFIX = "bk";

/**
 * Creates a key and returns it in full once; only its hash is stored. The key's role defaults to
 * the creator's (an owner's key is an admin's: ownership acts only signed in) and cannot exceed it.
 */
export async function createApiKey(
  { db, clock }: { db: BuilderDb; clock: Clock },
  principal: Principal,
  input: { name: string; expiresInDays?: number | undefined; role?: AssignableRole | undefined },
): Promise<{ row: ApiKeyRow; key: string }> {
  const role = input.role ?? (principal.role === "owner" ? "admin" : principal.role);
  if (!isAtLeast(principal.role, role))
    throw WorkspaceErrors.FORBIDDEN_ROLE({
      param: "role",
      message: `A key cannot do more than its creator: you are ${principal.role === "admin" ? "an" : "a"} ${principal.role} here.`,
    });
  const key = newSecretToken(KEY_PREFIX);
  const now = clock.now();
  const [row] = await db
    .insert(apiKeys)
    .values({
      id: newId("key", now.getTime()),
      workspaceId: principal.workspaceId,
      userId: principal.userId,
      name: input.name,
      role,
      prefix: key.slice(0, KEY_PREFIX.length + 7),
      keyHash: sha256Hex(key),
      createdAt: now,
      expiresAt: input.expiresInDays ? new Date(now.getTime() + input.expiresInDays * 86_400_000) : null,
    })
    .returning();
  if (!row) throw new Error("insert returned no row");
  return { row, key };
}
