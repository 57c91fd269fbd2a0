import { and, eq, sql } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import type { WorkflowRow } from "./schema.ts";
import { workflows } from "./schema.ts";

/** Invalidates the current trigger URL; the workflow answers a new one. */
export async function rotateTrigger(
  db: BuilderDb,
  workspaceId: string,
  id: string,
): Promise<WorkflowRow | undefined> {
  const [row] = await db
    .update(workflows)
    .set({ triggerVersion: sql`${workflows.triggerVersion} + 1` })
    .where(and(eq(workflows.id, id), eq(workflows.workspaceId, workspaceId)))
    .returning();
  return row;
}
