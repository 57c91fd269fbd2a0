import { and, eq } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import { workflows } from "./schema.ts";

export async function deleteWorkflow(db: BuilderDb, workspaceId: string, id: string): Promise<boolean> {
  const deleted = await db
    .delete(workflows)
    .where(and(eq(workflows.id, id), eq(workflows.workspaceId, workspaceId)))
    .returning({ id: workflows.id });
  return deleted.length > 0;
}
