import { type Clock, toStorable } from "@app/core";
import { and, eq } from "drizzle-orm";
import type { BuilderDb } from "../../db/index.ts";
import type { UpdateScheduleInput } from "./contract.ts";
import { canonicalTimeZone, cronTicks } from "./cron.ts";
import { type ScheduleRow, workflowSchedules } from "./schema.ts";

/**
 * Changes a schedule of the workspace; undefined when it has none with this id. A new cron or time
 * zone, or a resume, starts from the first tick after now (a paused time is not caught up); a pause
 * clears the next tick and any queued ones. The row is locked meanwhile, so a claim in progress
 * either fires the old tick before the change or sees the new one.
 *
 * @example const row = await updateSchedule(deps, workspaceId, "sch_…", { enabled: false });
 */
export async function updateSchedule(
  { db, clock }: { db: BuilderDb; clock: Clock },
  workspaceId: string,
  id: string,
  input: UpdateScheduleInput,
): Promise<ScheduleRow | undefined> {
  return db.transaction(async (tx) => {
    const [current] = await tx
      .select()
      .from(workflowSchedules)
      .where(and(eq(workflowSchedules.id, id), eq(workflowSchedules.workspaceId, workspaceId)))
      .for("update");
    if (!current) return undefined;
    const now = clock.now();
    const cron = input.cron ?? current.cron;
    const timezone =
      input.timezone === undefined ? current.timezone : (canonicalTimeZone(input.timezone) ?? input.timezone);
    const isEnabled = input.enabled ?? current.isEnabled;
    const isTimingChanged =
      cron !== current.cron || timezone !== current.timezone || (isEnabled && !current.isEnabled);
    let timing: Partial<ScheduleRow> = {};
    if (!isEnabled) timing = { nextFireAt: null, queuedTicks: [] };
    else if (isTimingChanged) timing = { nextFireAt: cronTicks(cron, timezone).next(now) };
    const [row] = await tx
      .update(workflowSchedules)
      .set({
        cron,
        timezone,
        isEnabled,
        ...(input.inputs === undefined ? {} : { inputs: toStorable(input.inputs) }),
        ...(input.overlap === undefined ? {} : { overlap: input.overlap }),
        ...(input.catch_up === undefined ? {} : { catchUp: input.catch_up }),
        ...timing,
        updatedAt: now,
      })
      .where(eq(workflowSchedules.id, id))
      .returning();
    return row;
  });
}
