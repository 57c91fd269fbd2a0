import { and, eq } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import type { StoredFileRow } from "./schema.ts";
import { storedFiles } from "./schema.ts";

/**
 * The workspace's stored file with this id, or undefined (another workspace's is not found either).
 *
 * @example const file = await findFile({ db }, "ws_1", "file_1");
 */
export async function findFile(
  { db }: { db: BuilderDb },
  workspaceId: string,
  id: string,
): Promise<StoredFileRow | undefined> {
  const [row] = await db
    .select()
    .from(storedFiles)
    .where(and(eq(storedFiles.id, id), eq(storedFiles.workspaceId, workspaceId)))
    .limit(1);
  return row;
}

/**
 * A stored file by id alone: only for a signed link, whose signature proves the right to it.
 *
 * @example const file = await findFileById({ db }, "file_1");
 */
export async function findFileById(
  { db }: { db: BuilderDb },
  id: string,
): Promise<StoredFileRow | undefined> {
  const [row] = await db.select().from(storedFiles).where(eq(storedFiles.id, id)).limit(1);
  return row;
}
