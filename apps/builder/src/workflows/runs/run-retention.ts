import { pollLoop } from "@app/core";
import type { Deps } from "../../deps.ts";
import { pruneRuns } from "./prune-runs.ts";

/** Runs deleted per statement: a round holds the database for milliseconds, not seconds. */
const BATCH = 500;
/** Between rounds when nothing is left to prune. */
const ROUND_EVERY_MS = 60 * 60_000;
/** The first round waits for the start-up (migrations, resumed runs, warm sandboxes) to settle. */
const FIRST_ROUND_AFTER_MS = 60_000;

export interface RunRetentionWorker {
  start(): void;
  stop(): Promise<void>;
  /** One round now, to its end; answers how many runs it deleted (tests and the benchmark). */
  pruneNow(): Promise<number>;
}

/**
 * Deletes finished workflow runs past RUN_RETENTION_DAYS and RUN_RETENTION_PER_WORKFLOW in the
 * background, as n8n prunes its executions: without it every run is kept forever, the embedded
 * database grows by ~6 KB a run and so does everything that reads it. Several processes may prune
 * at once: a run deleted twice is deleted once.
 *
 * @example const retention = createRunRetention(deps); retention.start(); … await retention.stop();
 */
export function createRunRetention(
  deps: Pick<Deps, "db" | "clock" | "logger" | "config">,
): RunRetentionWorker {
  const retention = deps.config.runRetention;
  const isOff = retention.maxAgeDays === 0 && retention.maxPerWorkflow === 0;
  let pruned = 0;
  const loop = pollLoop({
    work: async () => {
      const deleted = await pruneRuns(deps.db, retention, deps.clock.now(), BATCH);
      pruned += deleted;
      if (deleted === BATCH) return "busy";
      if (pruned > 0) deps.logger.info({ runs: pruned, ...retention }, "pruned finished workflow runs");
      pruned = 0;
      return { idleMs: ROUND_EVERY_MS };
    },
    minIdleMs: ROUND_EVERY_MS,
    onError: (error) => deps.logger.error({ err: error }, "pruning workflow runs failed"),
  });
  let firstRound: NodeJS.Timeout | undefined;
  return {
    start() {
      if (isOff) return;
      firstRound = setTimeout(() => loop.start(), FIRST_ROUND_AFTER_MS);
      firstRound.unref();
    },
    async stop() {
      clearTimeout(firstRound);
      await loop.stop();
    },
    async pruneNow() {
      let total = 0;
      for (;;) {
        const deleted = await pruneRuns(deps.db, retention, deps.clock.now(), BATCH);
        total += deleted;
        if (deleted < BATCH) return total;
      }
    },
  };
}
