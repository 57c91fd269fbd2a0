import type { RunRow } from "../schema.ts";
import { NEXT_RUNS_SHOWN } from "./contract.ts";
import { cronTicks, isoWithOffset } from "./cron.ts";
import type { ScheduleRow } from "./schema.ts";

/** What a schedule's answer says of its latest run. */
export type LastRun = Pick<RunRow, "id" | "status" | "scheduledFor">;

/**
 * A schedule as the API answers it, with its next ticks in its own zone and its latest run.
 *
 * @example toScheduleJson(row, lastRuns.get(row.id))
 */
export function toScheduleJson(row: ScheduleRow, lastRun: LastRun | undefined) {
  return {
    id: row.id,
    workflow_id: row.workflowId,
    cron: row.cron,
    timezone: row.timezone,
    inputs: row.inputs,
    overlap: row.overlap,
    catch_up: row.catchUp,
    enabled: row.isEnabled,
    next_runs: nextRuns(row).map((tick) => isoWithOffset(tick, row.timezone)),
    queued_ticks: row.queuedTicks.length,
    skipped_ticks: row.skippedTicks,
    last_skipped_for: row.lastSkippedFor?.toISOString() ?? null,
    last_run: lastRun
      ? { id: lastRun.id, status: lastRun.status, scheduled_for: lastRun.scheduledFor?.toISOString() ?? null }
      : null,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/** The next tick not yet claimed and the ones after it; none while paused. */
function nextRuns(row: ScheduleRow): Date[] {
  if (!row.isEnabled || !row.nextFireAt) return [];
  return [row.nextFireAt, ...cronTicks(row.cron, row.timezone).nextRuns(NEXT_RUNS_SHOWN - 1, row.nextFireAt)];
}
