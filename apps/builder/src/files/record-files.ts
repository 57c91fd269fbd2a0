import { and, eq } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import { storedFiles } from "./schema.ts";

/** What a feature that produced files (a generation, a workflow run) records about each one. */
export type NewStoredFile = typeof storedFiles.$inferInsert;

/**
 * Records files already written to storage, in the caller's transaction (`db` may be one), so they
 * appear together with what produced them.
 *
 * @example await recordStoredFiles(tx, settlement.files);
 */
export async function recordStoredFiles(db: BuilderDb, files: NewStoredFile[]): Promise<void> {
  if (files.length > 0) await db.insert(storedFiles).values(files);
}

/**
 * Forgets a generation's files, in the caller's transaction, and answers their storage keys: the
 * caller removes the bytes after it commits, so a failed removal leaves unreachable bytes, never a
 * dangling link.
 *
 * @example const keys = await forgetGenerationFiles(tx, workspaceId, generationId);
 */
export async function forgetGenerationFiles(
  db: BuilderDb,
  workspaceId: string,
  generationId: string,
): Promise<string[]> {
  const removed = await db
    .delete(storedFiles)
    .where(and(eq(storedFiles.generationId, generationId), eq(storedFiles.workspaceId, workspaceId)))
    .returning({ storageKey: storedFiles.storageKey });
  return removed.map((file) => file.storageKey);
}
