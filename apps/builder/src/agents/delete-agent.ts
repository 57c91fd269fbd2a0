import { and, eq } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import { agents } from "./schema.ts";

export async function deleteAgent(db: BuilderDb, workspaceId: string, id: string): Promise<boolean> {
  const deleted = await db
    .delete(agents)
    .where(and(eq(agents.id, id), eq(agents.workspaceId, workspaceId)))
    .returning({ id: agents.id });
  return deleted.length > 0;
}
