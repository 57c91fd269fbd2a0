import { type Clock, newId, storableJson } from "@app/core";
import type { Logger } from "@app/http";
import { and, eq, lte, min, sql } from "drizzle-orm";
import type { BuilderDb } from "../../db/index.ts";
import type { NewRun } from "../runs/run-store.ts";
import { insertRuns } from "../runs/run-store.ts";
import type { ClaimedRun } from "../runs/workflow-runner.ts";
import { type WorkflowRow, workflowRuns, workflows } from "../schema.ts";
import { cronTicks } from "./cron.ts";
import { applyOverlap, dueTicks } from "./due-ticks.ts";
import { graphForScheduledRun, publishedVersionsOf } from "./graph-for-scheduled-run.ts";
import { type ScheduleRow, workflowSchedules } from "./schema.ts";

/** A tick's run, on record in `running`, for the claiming process to execute. */
export interface ScheduledRunStart {
  workspaceId: string;
  workflow: WorkflowRow;
  /** The published version `workflow` holds; undefined for the draft. */
  version: number | undefined;
  inputs: Record<string, unknown>;
  claimed: ClaimedRun;
  overlap: ScheduleRow["overlap"];
}

export interface ClaimResult {
  runs: ScheduledRunStart[];
  /** Whether the claim took as many schedules as it was allowed: more may be due now. */
  isFull: boolean;
  /** The earliest `next_fire_at` left after the claim, to sleep until (null: no schedule is enabled). */
  nextDueAt: Date | null;
}

type ClaimDeps = { db: BuilderDb; clock: Clock; logger: Logger };

/**
 * Claims the due ticks of up to `limit` schedules in one transaction: locks the schedules that are
 * due (or have queued ticks and no run going), skipping those another process holds; writes a
 * `running` run row for each tick that starts; and moves each schedule's `next_fire_at` past now.
 * The runs and the advance commit together, so a tick is either claimed with its run or not at all:
 * two processes never fire the same tick, and a crash before the commit leaves the tick due.
 *
 * @example const { runs } = await claimDueTicks(deps, { limit: 200 }); for (const run of runs) void runner.run({ ...run, trigger: "schedule" });
 */
export async function claimDueTicks(deps: ClaimDeps, { limit }: { limit: number }): Promise<ClaimResult> {
  const now = deps.clock.now();
  return deps.db.transaction(async (tx) => {
    const isRunning = sql<boolean>`case when ${workflowSchedules.overlap} = 'allow' then false else exists (
      select 1 from ${workflowRuns} where ${workflowRuns.scheduleId} = ${workflowSchedules.id}
        and ${workflowRuns.status} = 'running') end`;
    const due = await tx
      .select({ schedule: workflowSchedules, workflow: workflows, isRunning })
      .from(workflowSchedules)
      .innerJoin(workflows, eq(workflows.id, workflowSchedules.workflowId))
      .where(lte(workflowSchedules.nextFireAt, now))
      .orderBy(workflowSchedules.nextFireAt)
      .limit(limit)
      .for("update", { of: workflowSchedules, skipLocked: true });
    // Ticks that waited for a run to end (overlap "queue"), whose run has ended since.
    const queued = await tx
      .select({ schedule: workflowSchedules, workflow: workflows, isRunning })
      .from(workflowSchedules)
      .innerJoin(workflows, eq(workflows.id, workflowSchedules.workflowId))
      .where(
        and(
          sql`${workflowSchedules.queuedTicks} <> '[]'::jsonb`,
          eq(workflowSchedules.isEnabled, true),
          sql`not exists (select 1 from ${workflowRuns} where ${workflowRuns.scheduleId} = ${workflowSchedules.id}
            and ${workflowRuns.status} = 'running')`,
        ),
      )
      .limit(limit)
      .for("update", { of: workflowSchedules, skipLocked: true });
    // A schedule both due and queued is locked by this transaction once and handled once.
    const rows = [...new Map([...due, ...queued].map((row) => [row.schedule.id, row])).values()];

    const published = await publishedVersionsOf(
      tx,
      rows.map((row) => row.workflow),
    );
    const runs: ScheduledRunStart[] = [];
    const advances: ScheduleAdvance[] = [];
    for (const { schedule, workflow, isRunning: isGoing } of rows) {
      const ticks = cronTicks(schedule.cron, schedule.timezone);
      const isDue = schedule.nextFireAt !== null && schedule.nextFireAt <= now;
      const { fire, next } =
        isDue && schedule.nextFireAt
          ? dueTicks(ticks, schedule.nextFireAt, schedule.catchUp, now)
          : { fire: [], next: schedule.nextFireAt };
      const decision = applyOverlap(
        schedule.overlap,
        fire,
        schedule.queuedTicks.map((tick) => new Date(tick)),
        isGoing,
      );
      const toRun = graphForScheduledRun(workflow, published.get(workflow.id));
      for (const tick of decision.start) {
        runs.push({
          workspaceId: schedule.workspaceId,
          workflow: toRun.workflow,
          version: toRun.version,
          inputs: schedule.inputs,
          overlap: schedule.overlap,
          claimed: {
            id: newId("run", now.getTime()),
            startedAt: now,
            scheduleId: schedule.id,
            scheduledFor: tick,
          },
        });
      }
      if (decision.skipped.length > 0 || (isDue && fire.length === 0)) {
        deps.logger.warn(
          {
            schedule_id: schedule.id,
            skipped: decision.skipped.map((tick) => tick.toISOString()),
            ...(fire.length === 0 && isDue ? { missed_since: schedule.nextFireAt?.toISOString() } : {}),
          },
          decision.skipped.length > 0
            ? "schedule ticks skipped: the previous run was still going"
            : "schedule ticks missed while no scheduler ran; catch_up none drops them",
        );
      }
      advances.push({
        id: schedule.id,
        next_fire_at: next?.toISOString() ?? null,
        queued_ticks: decision.queued.map((tick) => tick.toISOString()),
        skipped: decision.skipped.length,
        last_skipped_for: decision.skipped.at(-1)?.toISOString() ?? null,
      });
    }
    await insertRuns(
      tx,
      runs.map(
        (run): NewRun => ({
          id: run.claimed.id,
          workspaceId: run.workspaceId,
          workflowId: run.workflow.id,
          trigger: "schedule",
          graph: run.workflow.graph,
          inputs: run.inputs,
          startedAt: now,
          scheduleId: run.claimed.scheduleId,
          scheduledFor: run.claimed.scheduledFor,
          version: run.version ?? null,
          appId: null,
          endUserId: null,
        }),
      ),
    );
    if (advances.length > 0) await tx.execute(advanceSchedules(advances));
    // Paused schedules have no next_fire_at: the minimum is the next tick of an enabled one.
    const [earliest] = await tx.select({ at: min(workflowSchedules.nextFireAt) }).from(workflowSchedules);
    return {
      runs,
      isFull: due.length >= limit || queued.length >= limit,
      nextDueAt: earliest?.at ? new Date(earliest.at) : null,
    };
  });
}

interface ScheduleAdvance {
  id: string;
  next_fire_at: string | null;
  queued_ticks: string[];
  skipped: number;
  last_skipped_for: string | null;
}

/** Every claimed schedule's advance in one statement, the rows as one JSON parameter. */
function advanceSchedules(advances: ScheduleAdvance[]) {
  return sql`update ${workflowSchedules} s set
      next_fire_at = v.next_fire_at,
      queued_ticks = v.queued_ticks,
      skipped_ticks = s.skipped_ticks + v.skipped,
      last_skipped_for = coalesce(v.last_skipped_for, s.last_skipped_for)
    from jsonb_to_recordset(${storableJson(advances)}::jsonb) as v(id text, next_fire_at timestamptz,
      queued_ticks jsonb, skipped integer, last_skipped_for timestamptz)
    where s.id = v.id`;
}
