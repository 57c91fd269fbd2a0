import { and, eq } from "drizzle-orm";
import type { BuilderDb } from "../../db/index.ts";
import { type ScheduleRow, workflowSchedules } from "./schema.ts";

/**
 * A schedule of the workspace, or undefined (another workspace's is not found either).
 *
 * @example const row = await findSchedule(db, workspaceId, "sch_…");
 */
export async function findSchedule(
  db: BuilderDb,
  workspaceId: string,
  id: string,
): Promise<ScheduleRow | undefined> {
  const [row] = await db
    .select()
    .from(workflowSchedules)
    .where(and(eq(workflowSchedules.id, id), eq(workflowSchedules.workspaceId, workspaceId)))
    .limit(1);
  return row;
}
