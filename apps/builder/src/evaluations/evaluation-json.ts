import type { EvaluationTotals } from "./evaluation-totals.ts";
import type { EvaluationResultRow, EvaluationRow } from "./schema.ts";

const noTotals: EvaluationTotals = { rowsDone: 0, meanScore: null, credits: 0, meanLatencyMs: null };

/**
 * An evaluation as the API answers it; with `rows` on GET of one.
 *
 * @example return c.json(toEvaluationJson(row, totals, results), 200);
 */
export function toEvaluationJson(
  row: EvaluationRow,
  totals: EvaluationTotals | undefined,
  results?: EvaluationResultRow[],
) {
  const sums = totals ?? noTotals;
  return {
    id: row.id,
    object: "evaluation" as const,
    target: {
      agent_id: row.targetKind === "agent" ? row.targetId : null,
      workflow_id: row.targetKind === "workflow" ? row.targetId : null,
      version: row.version ?? ("draft" as const),
    },
    dataset_id: row.datasetId,
    evaluators: row.evaluators,
    status: row.status,
    reason: row.reason,
    rows_total: row.rowsTotal,
    rows_done: sums.rowsDone,
    mean_score: roundScore(sums.meanScore),
    mean_by_evaluator: results ? meanByEvaluator(results) : {},
    credits: sums.credits,
    mean_latency_ms: sums.meanLatencyMs,
    created_at: row.createdAt.toISOString(),
    finished_at: row.finishedAt?.toISOString() ?? null,
    ...(results ? { rows: results.map(toEvaluationRowJson) } : {}),
  };
}

/**
 * One row of an evaluation as the API answers it.
 *
 * @example const json = toEvaluationRowJson(result);
 */
export function toEvaluationRowJson(result: EvaluationResultRow) {
  return {
    position: result.position,
    status: result.status,
    input: result.input,
    inputs: result.inputs,
    expected: result.expected,
    output: result.output,
    error: result.error,
    scores: result.scores ?? [],
    score: roundScore(result.score),
    latency_ms: result.latencyMs,
    credits: result.credits,
  };
}

/** Per evaluator (by type, numbered when one type repeats): the mean over succeeded rows. */
function meanByEvaluator(results: EvaluationResultRow[]): Record<string, number> {
  const sums = new Map<string, { total: number; count: number }>();
  for (const result of results) {
    const seen = new Map<string, number>();
    for (const score of result.scores ?? []) {
      const index = (seen.get(score.evaluator) ?? 0) + 1;
      seen.set(score.evaluator, index);
      const key = index === 1 ? score.evaluator : `${score.evaluator}_${index}`;
      const sum = sums.get(key) ?? { total: 0, count: 0 };
      sum.total += score.score;
      sum.count += 1;
      sums.set(key, sum);
    }
  }
  return Object.fromEntries([...sums].map(([key, sum]) => [key, roundScore(sum.total / sum.count) ?? 0]));
}

function roundScore(value: number | null): number | null {
  return value === null ? null : Math.round(value * 10_000) / 10_000;
}
