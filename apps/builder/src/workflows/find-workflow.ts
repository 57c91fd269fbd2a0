import { and, eq } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import type { WorkflowRow } from "./schema.ts";
import { workflows } from "./schema.ts";

export async function findWorkflow(
  db: BuilderDb,
  workspaceId: string,
  id: string,
): Promise<WorkflowRow | undefined> {
  const [row] = await db
    .select()
    .from(workflows)
    .where(and(eq(workflows.id, id), eq(workflows.workspaceId, workspaceId)))
    .limit(1);
  return row;
}
