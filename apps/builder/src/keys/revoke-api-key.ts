import { and, eq } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import { apiKeys } from "./schema.ts";

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

/** Deletes every key the user made in the workspace (they left it); answers the keys' hashes. */
export async function revokeMemberApiKeys(
  db: BuilderDb,
  workspaceId: string,
  userId: string,
): Promise<string[]> {
  const deleted = await db
    .delete(apiKeys)
    .where(and(eq(apiKeys.workspaceId, workspaceId), eq(apiKeys.userId, userId)))
    .returning({ keyHash: apiKeys.keyHash });
  return deleted.map((row) => row.keyHash);
}
