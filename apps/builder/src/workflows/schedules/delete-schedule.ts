import { and, eq } from "drizzle-orm";
import type { BuilderDb } from "../../db/index.ts";
import { workflowSchedules } from "./schema.ts";

/**
 * Deletes a schedule of the workspace; its runs stay (with their `schedule_id`). A tick being claimed
 * at that moment still fires once: the claim holds the row until it commits.
 *
 * @example const isDeleted = await deleteSchedule(db, workspaceId, "sch_…");
 */
export async function deleteSchedule(db: BuilderDb, workspaceId: string, id: string): Promise<boolean> {
  const deleted = await db
    .delete(workflowSchedules)
    .where(and(eq(workflowSchedules.id, id), eq(workflowSchedules.workspaceId, workspaceId)))
    .returning({ id: workflowSchedules.id });
  return deleted.length > 0;
}
