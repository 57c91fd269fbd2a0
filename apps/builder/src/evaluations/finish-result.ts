import type { Clock } from "@app/core";
import { and, eq, sql } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import { type EvaluatorScore, evaluationResults, evaluations } from "./schema.ts";

export type RowOutcome =
  | {
      status: "succeeded";
      output: string;
      scores: EvaluatorScore[];
      latencyMs: number;
      credits: number | null;
      inputTokens: number;
      outputTokens: number;
    }
  | {
      status: "failed";
      error: string;
      output: string | null;
      latencyMs: number | null;
      credits: number | null;
    };

/**
 * Stores a claimed row's outcome, only over the attempt that claimed it (a process that lost its lease
 * and finishes late writes nothing), and closes the evaluation when it was its last open row. Answers
 * whether this finish was the one stored, and whether it closed the evaluation.
 *
 * @example const { isStored, isEvaluationDone } = await finishResult({ db, clock }, row, outcome);
 */
export async function finishResult(
  { db, clock }: { db: BuilderDb; clock: Clock },
  claimed: { evaluationId: string; position: number; attempt: number },
  outcome: RowOutcome,
): Promise<{ isStored: boolean; isEvaluationDone: boolean }> {
  const now = clock.now();
  return db.transaction(async (tx) => {
    const values =
      outcome.status === "succeeded"
        ? {
            status: "succeeded" as const,
            output: outcome.output,
            error: null,
            scores: outcome.scores,
            score: mean(outcome.scores.map((score) => score.score)),
            latencyMs: outcome.latencyMs,
            credits: outcome.credits,
            inputTokens: outcome.inputTokens,
            outputTokens: outcome.outputTokens,
          }
        : {
            status: "failed" as const,
            output: outcome.output,
            error: outcome.error.slice(0, 2000),
            scores: [],
            score: 0,
            latencyMs: outcome.latencyMs,
            credits: outcome.credits,
          };
    const stored = await tx
      .update(evaluationResults)
      .set({ ...values, leaseUntil: null, finishedAt: now })
      .where(
        and(
          eq(evaluationResults.evaluationId, claimed.evaluationId),
          eq(evaluationResults.position, claimed.position),
          eq(evaluationResults.attempt, claimed.attempt),
          eq(evaluationResults.status, "running"),
        ),
      )
      .returning({ position: evaluationResults.position });
    if (stored.length === 0) return { isStored: false, isEvaluationDone: false };
    const closed = await tx
      .update(evaluations)
      .set({
        status: sql`case when exists (select 1 from ${evaluationResults} r where r.evaluation_id = ${evaluations.id}
          and r.status = 'succeeded') then 'succeeded' else 'failed' end`,
        finishedAt: now,
      })
      .where(
        and(
          eq(evaluations.id, claimed.evaluationId),
          eq(evaluations.status, "running"),
          sql`not exists (select 1 from ${evaluationResults} r where r.evaluation_id = ${evaluations.id}
            and r.status in ('pending', 'running'))`,
        ),
      )
      .returning({ id: evaluations.id });
    return { isStored: true, isEvaluationDone: closed.length > 0 };
  });
}

function mean(values: number[]): number | null {
  if (values.length === 0) return null;
  return values.reduce((sum, value) => sum + value, 0) / values.length;
}
