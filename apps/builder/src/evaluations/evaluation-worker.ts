import { EventEmitter } from "node:events";
import { pollLoop } from "@app/core";
import type { Deps } from "../deps.ts";
import type { WorkflowRunner } from "../workflows/runs/workflow-runner.ts";
import { type ClaimedResult, claimResults } from "./claim-results.ts";
import { scoreRow } from "./evaluators.ts";
import { finishResult } from "./finish-result.ts";
import { releaseResults } from "./release-results.ts";
import { runTarget, TargetError } from "./run-target.ts";
import type { EvaluatorScore } from "./schema.ts";
import type { EvaluationWorkerOptions } from "./worker-options.ts";

export interface EvaluationWorker {
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Claims now: after an evaluation was created. */
  wake(): void;
  /** Resolves when this process closes the evaluation, or after `ms` (whichever comes first). */
  whenFinished(evaluationId: string, ms: number): Promise<void>;
  readonly options: EvaluationWorkerOptions;
}

/**
 * Runs evaluations' rows in the background: claims open rows from the database (any process's
 * evaluation), runs the target and the evaluators on each, stores each row as it finishes. At most
 * `concurrency` rows at once per process; stopping releases the rows in hand so the next process
 * resumes them at once (a crash leaves them to the lease).
 *
 * @example const worker = createEvaluationWorker(deps, runner); await worker.start();
 */
export function createEvaluationWorker(deps: Deps, runner: WorkflowRunner): EvaluationWorker {
  const options: EvaluationWorkerOptions = {
    concurrency: 4,
    // A row is a target call and its judges, each bounded by the AI timeout.
    leaseMs: deps.ai.timeoutMs * 4 + 60_000,
    minIdleMs: 100,
    maxIdleMs: 2_000,
    gateTimeoutMs: 120_000,
    ...deps.evaluations,
  };
  const finished = new EventEmitter();
  finished.setMaxListeners(0);
  const inFlight = new Map<string, { claimed: ClaimedResult; abort: AbortController; done: Promise<void> }>();

  const handle = async (claimed: ClaimedResult, signal: AbortSignal) => {
    const { evaluation, row } = claimed;
    const key = { evaluationId: row.evaluationId, position: row.position, attempt: row.attempt };
    let outcome: Parameters<typeof finishResult>[2];
    try {
      const target = await runTarget(deps, runner, evaluation, row, signal);
      const scores: EvaluatorScore[] = [];
      for (const spec of evaluation.evaluators) {
        scores.push(
          await scoreRow(
            deps,
            evaluation.workspaceId,
            spec,
            {
              input: row.input ?? JSON.stringify(row.inputs ?? {}),
              output: target.output,
              expected: row.expected,
            },
            signal,
          ),
        );
      }
      outcome = { status: "succeeded", ...target, scores };
    } catch (error) {
      // Stopping: the row goes back to pending (or to the lease), untouched.
      if (signal.aborted) return;
      if (!(error instanceof TargetError)) {
        deps.logger.warn(
          { err: error, evaluation_id: row.evaluationId, position: row.position },
          "evaluation row failed",
        );
      }
      outcome = {
        status: "failed",
        error: error instanceof Error ? error.message : String(error),
        output: null,
        latencyMs: null,
        credits: null,
      };
    }
    const { isEvaluationDone } = await finishResult(deps, key, outcome);
    if (isEvaluationDone) finished.emit(row.evaluationId);
  };

  const loop = pollLoop({
    minIdleMs: options.minIdleMs,
    maxIdleMs: options.maxIdleMs,
    onError: (error) => deps.logger.error({ err: error }, "claiming evaluation rows failed"),
    work: async () => {
      const free = options.concurrency - inFlight.size;
      if (free <= 0) return "idle";
      const claimed = await claimResults(deps, { limit: free, leaseMs: options.leaseMs });
      for (const item of claimed) {
        const id = `${item.row.evaluationId}:${item.row.position}`;
        const abort = new AbortController();
        const done = handle(item, abort.signal)
          .catch((error: unknown) =>
            deps.logger.error(
              { err: error, evaluation_id: item.row.evaluationId },
              "storing an evaluation row failed",
            ),
          )
          .finally(() => {
            inFlight.delete(id);
            loop.wake();
          });
        inFlight.set(id, { claimed: item, abort, done });
      }
      return claimed.length > 0 && claimed.length === free ? "busy" : "idle";
    },
  });

  return {
    async start() {
      if (deps.isSoleProcess) await releaseResults(deps.db, "all");
      loop.start();
    },
    async stop() {
      await loop.stop();
      const held = [...inFlight.values()];
      for (const item of held) item.abort.abort();
      await Promise.all(held.map((item) => item.done));
      await releaseResults(
        deps.db,
        held.map(({ claimed }) => ({
          evaluationId: claimed.row.evaluationId,
          position: claimed.row.position,
          attempt: claimed.row.attempt,
        })),
      ).catch((error: unknown) => deps.logger.error({ err: error }, "releasing evaluation rows failed"));
    },
    options,
    wake: () => loop.wake(),
    whenFinished(evaluationId, ms) {
      return new Promise((resolve) => {
        const done = () => {
          clearTimeout(timer);
          finished.off(evaluationId, done);
          resolve();
        };
        const timer = setTimeout(done, ms);
        finished.on(evaluationId, done);
      });
    },
  };
}
