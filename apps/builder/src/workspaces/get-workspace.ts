import { eq } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import { type WorkspaceRow, workspaces } from "./schema.ts";

export async function getWorkspace(db: BuilderDb, id: string): Promise<WorkspaceRow | undefined> {
  const [row] = await db.select().from(workspaces).where(eq(workspaces.id, id)).limit(1);
  return row;
}
