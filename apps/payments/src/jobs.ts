import { periodicJob } from "@app/core";
import { pruneDeliveryRecords } from "@app/webhooks";
import { lt } from "drizzle-orm";
import { dashboardSessions } from "./dashboard/schema.ts";
import type { Deps } from "./deps.ts";
import { IDEMPOTENCY_WINDOW_MS } from "./idempotency/idempotency.ts";
import { idempotencyKeys } from "./idempotency/schema.ts";
import { expireDuePayments } from "./payments/expire-payments.ts";
import { settleDuePayouts } from "./payouts/settle-due-payouts.ts";
import { settleDueRefunds } from "./refunds/settle-due-refunds.ts";

/**
 * One pass of the service's periodic work: expire payments, let the simulated providers settle
 * refunds and payouts. Safe to run from several processes (every move locks its row).
 *
 * @example await runSweeps(deps);
 */
export async function runSweeps(deps: Deps): Promise<{ expired: number; refunds: number; payouts: number }> {
  const expired = await expireDuePayments(deps);
  const refunds = await settleDueRefunds(deps);
  const payouts = await settleDuePayouts(deps);
  return { expired, refunds, payouts };
}

/**
 * The retention job: attempt and delivery records older than 90 days, old idempotency keys and
 * expired dashboard sessions. Events are kept forever.
 *
 * @example await runRetention(deps);
 */
export async function runRetention(deps: Deps) {
  const now = deps.clock.now();
  const pruned = await pruneDeliveryRecords(deps);
  await deps.db
    .delete(idempotencyKeys)
    .where(lt(idempotencyKeys.createdAt, new Date(now.getTime() - IDEMPOTENCY_WINDOW_MS)));
  await deps.db.delete(dashboardSessions).where(lt(dashboardSessions.expiresAt, now));
  return pruned;
}

/**
 * Runs `runSweeps` every second and `runRetention` every hour until stopped.
 *
 * @example const jobs = startJobs(deps); … await jobs.stop();
 */
export function startJobs(deps: Deps, options: { sweepMs?: number; retentionMs?: number } = {}) {
  const onError = (job: string) => (error: unknown) =>
    deps.logger.error({ err: error, job }, "background job failed");
  const jobs = [
    periodicJob({ run: () => runSweeps(deps), everyMs: options.sweepMs ?? 1000, onError: onError("sweep") }),
    periodicJob({
      run: () => runRetention(deps),
      everyMs: options.retentionMs ?? 3_600_000,
      onError: onError("retention"),
    }),
  ];
  for (const job of jobs) job.start();
  return {
    async stop() {
      await Promise.all(jobs.map((job) => job.stop()));
    },
  };
}
