import { pollLoop } from "@app/core";
import type { Deps } from "../../deps.ts";
import type { WorkflowRunner } from "../runs/workflow-runner.ts";
import { claimDueTicks, type ScheduledRunStart } from "./claim-due-ticks.ts";

export interface SchedulerOptions {
  /** Schedules claimed in one transaction; a full claim is followed by the next at once. */
  batchSize: number;
  /**
   * The longest sleep between claims: how soon a schedule another process created or changed is
   * seen, and a queued tick whose run ended in another process starts.
   */
  maxIdleMs: number;
  /** Runs of this process's ticks going at once; past it, due ticks wait (late, not lost). */
  maxRunning: number;
}

export const DEFAULT_SCHEDULER_OPTIONS: SchedulerOptions = {
  batchSize: 200,
  maxIdleMs: 1_000,
  maxRunning: 500,
};

/** After a claim that found due schedules it could not take (another process holds them). */
const CONTENDED_IDLE_MS = 5;

export interface Scheduler {
  /** Starts claiming due ticks in the background. */
  start(): void;
  /** Claims again now (a schedule was created or changed, or a run of a queueing schedule ended). */
  wake(): void;
  /** Stops claiming; runs already started go on under the runner (which `stop` aborts). */
  stop(): Promise<void>;
  /**
   * One claim now, outside the loop, and the runs it started: tests move a manual clock and call this
   * instead of waiting for the loop's timer.
   */
  runDue(): Promise<number>;
  /** Resolves once every run this scheduler started so far has ended. */
  settled(): Promise<void>;
}

/**
 * Fires workflow schedules: a poll loop that claims due ticks in the database (so each fires once
 * across every process on it), starts their runs in this process, and sleeps until the earliest next
 * tick. Time comes from `deps.clock`.
 *
 * @example const scheduler = createScheduler(deps, runner); scheduler.start(); … await scheduler.stop();
 */
export function createScheduler(
  deps: Deps,
  runner: WorkflowRunner,
  options: Partial<SchedulerOptions> = {},
): Scheduler {
  const settings = { ...DEFAULT_SCHEDULER_OPTIONS, ...options };
  const running = new Set<Promise<void>>();
  // Claims in progress, so `settled` also waits for runs a claim is about to start.
  const claiming = new Set<Promise<unknown>>();

  const execute = (start: ScheduledRunStart) => {
    const run = runner
      .run({
        workspaceId: start.workspaceId,
        workflow: start.workflow,
        inputs: start.inputs,
        trigger: "schedule",
        version: start.version,
        claimed: start.claimed,
      })
      .then(
        () => undefined,
        (error: unknown) =>
          // The row stays `running` without a heartbeat: the sweep marks it interrupted in a minute.
          deps.logger.error(
            { err: error, run_id: start.claimed.id, schedule_id: start.claimed.scheduleId },
            "scheduled run failed to record",
          ),
      )
      .finally(() => {
        running.delete(run);
        // A queued tick may start now; a full process may claim again.
        if (start.overlap === "queue" || running.size === settings.maxRunning - 1) loop.wake();
      });
    running.add(run);
  };

  const claim = async () => {
    const room = settings.maxRunning - running.size;
    if (room <= 0) return { started: 0, outcome: "idle" as const };
    // The runs start inside the tracked promise, so a claim is never "over" before its runs exist.
    const claimed = claimDueTicks(deps, { limit: Math.min(settings.batchSize, room) }).then((result) => {
      for (const start of result.runs) execute(start);
      return result;
    });
    claiming.add(claimed);
    const result = await claimed.finally(() => claiming.delete(claimed));
    if (result.isFull) return { started: result.runs.length, outcome: "busy" as const };
    const untilNext =
      result.nextDueAt === null
        ? settings.maxIdleMs
        : result.nextDueAt.getTime() - deps.clock.now().getTime();
    return {
      started: result.runs.length,
      outcome: { idleMs: untilNext > 0 ? untilNext : CONTENDED_IDLE_MS },
    };
  };

  const loop = pollLoop({
    work: async () => (await claim()).outcome,
    minIdleMs: CONTENDED_IDLE_MS,
    maxIdleMs: settings.maxIdleMs,
    onError: (error) => deps.logger.error({ err: error }, "schedule claim failed"),
  });

  return {
    start: () => loop.start(),
    wake: () => loop.wake(),
    stop: () => loop.stop(),
    runDue: async () => (await claim()).started,
    settled: async () => {
      while (running.size > 0 || claiming.size > 0) {
        await Promise.allSettled([...claiming, ...running]);
      }
    },
  };
}
