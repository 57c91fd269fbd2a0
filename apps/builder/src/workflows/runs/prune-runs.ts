import { and, desc, eq, inArray, lt, sql } from "drizzle-orm";
import type { BuilderDb } from "../../db/index.ts";
import { workflowRuns } from "../schema.ts";

/**
 * The statuses a run never leaves. Listed, not excluded: a run running, waiting for a person or
 * in any status added later is never pruned.
 */
const FINISHED = ["succeeded", "failed", "cancelled"] as const;

export interface RunRetention {
  /** Finished runs that started longer ago are deleted; 0 keeps them whatever their age. */
  maxAgeDays: number;
  /** Each workflow keeps this many of its newest finished runs; 0 sets no limit. */
  maxPerWorkflow: number;
}

/**
 * Deletes up to `batch` finished runs that the retention rules let go (their node runs go with
 * them), oldest first, and answers how many it deleted: fewer than `batch` means nothing is left
 * to prune now. One bounded statement per rule, so a large backlog is pruned over many short
 * rounds that requests interleave with, never one long lock.
 *
 * @example while ((await pruneRuns(db, { maxAgeDays: 30, maxPerWorkflow: 10_000 }, new Date(), 500)) === 500);
 */
export async function pruneRuns(
  db: BuilderDb,
  retention: RunRetention,
  now: Date,
  batch: number,
): Promise<number> {
  let deleted = 0;
  if (retention.maxAgeDays > 0) {
    const startedBefore = new Date(now.getTime() - retention.maxAgeDays * 86_400_000);
    const old = db
      .select({ id: workflowRuns.id })
      .from(workflowRuns)
      .where(and(lt(workflowRuns.startedAt, startedBefore), inArray(workflowRuns.status, [...FINISHED])))
      .orderBy(workflowRuns.startedAt)
      .limit(batch);
    deleted += (
      await db.delete(workflowRuns).where(inArray(workflowRuns.id, old)).returning({ id: workflowRuns.id })
    ).length;
  }
  if (retention.maxPerWorkflow > 0 && deleted < batch) {
    deleted += await pruneBeyondCount(db, retention.maxPerWorkflow, batch - deleted);
  }
  return deleted;
}

/** Deletes the finished runs past each workflow's newest `keep`, up to `batch` of them. */
async function pruneBeyondCount(db: BuilderDb, keep: number, batch: number): Promise<number> {
  // Counted on the (workflow_id, id) index; only workflows over the limit are read further.
  const crowded = await db
    .select({ workflowId: workflowRuns.workflowId })
    .from(workflowRuns)
    .where(inArray(workflowRuns.status, [...FINISHED]))
    .groupBy(workflowRuns.workflowId)
    .having(sql`count(*) > ${keep}`);
  let deleted = 0;
  for (const { workflowId } of crowded) {
    if (deleted >= batch) break;
    // Run ids grow with time, so past the newest `keep` by id is past them by start.
    const beyond = db
      .select({ id: workflowRuns.id })
      .from(workflowRuns)
      .where(and(eq(workflowRuns.workflowId, workflowId), inArray(workflowRuns.status, [...FINISHED])))
      .orderBy(desc(workflowRuns.id))
      .offset(keep)
      .limit(batch - deleted);
    deleted += (
      await db.delete(workflowRuns).where(inArray(workflowRuns.id, beyond)).returning({ id: workflowRuns.id })
    ).length;
  }
  return deleted;
}
