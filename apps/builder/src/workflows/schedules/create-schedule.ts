import { type Clock, newId, toStorable } from "@app/core";
import { count, eq } from "drizzle-orm";
import type { BuilderDb } from "../../db/index.ts";
import { type CreateScheduleInput, MAX_SCHEDULES_PER_WORKFLOW } from "./contract.ts";
import { canonicalTimeZone, cronTicks } from "./cron.ts";
import { ScheduleErrors } from "./errors.ts";
import { type ScheduleRow, workflowSchedules } from "./schema.ts";

/**
 * Stores a schedule of a workflow the caller owns (the route checked it and the inputs); an enabled
 * one's first tick is the first after now.
 *
 * @example const row = await createSchedule(deps, workspaceId, workflowId, { cron: "0 9 * * 1-5", timezone: "Europe/Berlin", inputs: {}, overlap: "skip", catch_up: "latest", enabled: true });
 */
export async function createSchedule(
  { db, clock }: { db: BuilderDb; clock: Clock },
  workspaceId: string,
  workflowId: string,
  input: CreateScheduleInput,
): Promise<ScheduleRow> {
  const now = clock.now();
  const timezone = canonicalTimeZone(input.timezone) ?? input.timezone;
  const [existing] = await db
    .select({ count: count() })
    .from(workflowSchedules)
    .where(eq(workflowSchedules.workflowId, workflowId));
  if ((existing?.count ?? 0) >= MAX_SCHEDULES_PER_WORKFLOW) throw ScheduleErrors.TOO_MANY_SCHEDULES();
  const [row] = await db
    .insert(workflowSchedules)
    .values({
      id: newId("sch", now.getTime()),
      workspaceId,
      workflowId,
      cron: input.cron,
      timezone,
      inputs: toStorable(input.inputs),
      overlap: input.overlap,
      catchUp: input.catch_up,
      isEnabled: input.enabled,
      nextFireAt: input.enabled ? cronTicks(input.cron, timezone).next(now) : null,
      createdAt: now,
      updatedAt: now,
    })
    .returning();
  if (!row) throw new Error("insert returned no row");
  return row;
}
