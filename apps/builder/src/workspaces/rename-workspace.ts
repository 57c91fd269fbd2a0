import { eq } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import { type WorkspaceRow, workspaces } from "./schema.ts";

export async function renameWorkspace(
  db: BuilderDb,
  id: string,
  name: string,
): Promise<WorkspaceRow | undefined> {
  const [row] = await db.update(workspaces).set({ name }).where(eq(workspaces.id, id)).returning();
  return row;
}
