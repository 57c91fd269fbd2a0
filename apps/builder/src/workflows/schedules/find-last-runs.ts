import { queryRows } from "@app/db";
import { sql } from "drizzle-orm";
import type { BuilderDb } from "../../db/index.ts";
import type { LastRun } from "./schedule-json.ts";

/**
 * The latest run (by the tick it fired for) of each of these schedules, by schedule id: one
 * statement for a page of schedules, one index probe each, however many runs they have had.
 *
 * @example const lastRuns = await findLastRuns(db, rows.map((row) => row.id));
 */
export async function findLastRuns(db: BuilderDb, scheduleIds: string[]): Promise<Map<string, LastRun>> {
  if (scheduleIds.length === 0) return new Map();
  const rows = await queryRows<{
    schedule_id: string;
    id: string;
    status: LastRun["status"];
    scheduled_for: string;
  }>(
    db,
    sql`select s.id as schedule_id, r.id, r.status, r.scheduled_for
      from jsonb_array_elements_text(${JSON.stringify(scheduleIds)}::jsonb) as s(id)
      cross join lateral (
        select id, status, scheduled_for from workflow_runs
        where schedule_id = s.id order by scheduled_for desc, id desc limit 1
      ) r`,
  );
  return new Map(
    rows.map((row) => [
      row.schedule_id,
      { id: row.id, status: row.status, scheduledFor: new Date(row.scheduled_for) },
    ]),
  );
}
