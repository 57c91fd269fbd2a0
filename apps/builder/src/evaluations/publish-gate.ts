import { ApiError, type ErrorDetail } from "@app/http";
import type { Deps } from "../deps.ts";
import type { EvaluationGate, GateResult, PublishGate } from "../versions/evaluation-gate.ts";
import { createEvaluation } from "./create-evaluation.ts";
import { EvaluationErrors } from "./errors.ts";
import { toEvaluationJson } from "./evaluation-json.ts";
import { evaluationTotals } from "./evaluation-totals.ts";
import type { EvaluationWorker } from "./evaluation-worker.ts";
import { findDataset } from "./find-dataset.ts";
import { findEvaluation } from "./find-evaluation.ts";
import { listEvaluationResults } from "./list-evaluation-results.ts";

/** How often a waiting publish looks at the database, for an evaluation another process finishes. */
const RECHECK_MS = 1_000;

/**
 * The publish gate: evaluates the target's draft on the gate's dataset (an evaluation like any other,
 * with reason "publish_gate", run by the background workers) and waits for it within the publish
 * request, up to `gateTimeoutMs`. Under `min_score` it throws 409 evaluation_gate_failed with the
 * scores and the evaluation's id; past the timeout 504 evaluation_gate_timeout (the evaluation goes on).
 *
 * @example deps.publishGate = createPublishGate(deps, worker);
 */
export function createPublishGate(deps: Deps, worker: EvaluationWorker): PublishGate {
  return {
    async hasDataset(workspaceId, datasetId) {
      return (await findDataset(deps.db, workspaceId, datasetId)) !== undefined;
    },
    async check(workspaceId, target, gate: EvaluationGate): Promise<GateResult> {
      const started = await createEvaluation(deps, workspaceId, {
        target: { ...target, version: "draft" },
        dataset_id: gate.dataset_id,
        evaluators: gate.evaluators,
        reason: "publish_gate",
      }).catch((error: unknown) => {
        // The gate's dataset was deleted after it was saved: say which setting to fix.
        if (error instanceof ApiError && error.code === EvaluationErrors.codes.DATASET_NOT_FOUND) {
          throw EvaluationErrors.DATASET_NOT_FOUND({ param: "evaluation_gate.dataset_id" });
        }
        throw error;
      });
      worker.wake();
      const deadline = Date.now() + worker.options.gateTimeoutMs;
      let evaluation = started;
      while (evaluation.status === "running") {
        const left = deadline - Date.now();
        if (left <= 0) {
          throw EvaluationErrors.EVALUATION_GATE_TIMEOUT({
            details: [{ path: "evaluation_id", message: started.id }],
          });
        }
        await worker.whenFinished(started.id, Math.min(left, RECHECK_MS));
        evaluation = (await findEvaluation(deps.db, workspaceId, started.id)) ?? evaluation;
      }
      const [totals, results] = await Promise.all([
        evaluationTotals(deps.db, [started.id]),
        listEvaluationResults(deps.db, started.id),
      ]);
      const json = toEvaluationJson(evaluation, totals.get(started.id), results);
      const mean = json.mean_score ?? 0;
      if (mean < gate.min_score) {
        const details: ErrorDetail[] = [
          { path: "evaluation_id", message: started.id },
          { path: "mean_score", message: String(mean) },
          { path: "min_score", message: String(gate.min_score) },
          ...Object.entries(json.mean_by_evaluator).map(([name, score]) => ({
            path: `scores.${name}`,
            message: String(score),
          })),
        ];
        throw EvaluationErrors.EVALUATION_GATE_FAILED({
          message: `The draft scored ${mean} on evaluation ${started.id}, under the gate's min_score ${gate.min_score}; fix it, or publish with force: true.`,
          details,
        });
      }
      return { evaluation_id: started.id, mean_score: mean, min_score: gate.min_score, is_skipped: false };
    },
  };
}
