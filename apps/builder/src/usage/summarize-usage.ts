import { and, asc, count, eq, gte, lt, sql, sum } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import { modelCalls } from "./schema.ts";

export interface UsageRow {
  provider: string;
  model: string;
  calls: number;
  failed_calls: number;
  input_tokens: number;
  output_tokens: number;
  avg_latency_ms: number;
}

/**
 * Model calls of a workspace in `[from, to)`, per provider and model, with totals.
 *
 * @example const usage = await summarizeUsage(db, workspaceId, { from, to });
 */
export async function summarizeUsage(
  db: BuilderDb,
  workspaceId: string,
  range: { from: Date; to: Date },
): Promise<{ data: UsageRow[]; totals: Omit<UsageRow, "provider" | "model" | "avg_latency_ms"> }> {
  const rows = await db
    .select({
      provider: modelCalls.provider,
      model: modelCalls.model,
      calls: count(),
      failedCalls: sql<number>`count(*) filter (where ${modelCalls.status} <> 'succeeded')`.mapWith(Number),
      inputTokens: sum(modelCalls.inputTokens).mapWith(Number),
      outputTokens: sum(modelCalls.outputTokens).mapWith(Number),
      avgLatencyMs: sql<number>`coalesce(round(avg(${modelCalls.latencyMs})), 0)`.mapWith(Number),
    })
    .from(modelCalls)
    .where(
      and(
        eq(modelCalls.workspaceId, workspaceId),
        gte(modelCalls.createdAt, range.from),
        lt(modelCalls.createdAt, range.to),
      ),
    )
    .groupBy(modelCalls.provider, modelCalls.model)
    .orderBy(asc(modelCalls.provider), asc(modelCalls.model));
  const data = rows.map((row) => ({
    provider: row.provider,
    model: row.model,
    calls: row.calls,
    failed_calls: row.failedCalls,
    input_tokens: row.inputTokens,
    output_tokens: row.outputTokens,
    avg_latency_ms: row.avgLatencyMs,
  }));
  const totals = { calls: 0, failed_calls: 0, input_tokens: 0, output_tokens: 0 };
  for (const row of data) {
    totals.calls += row.calls;
    totals.failed_calls += row.failed_calls;
    totals.input_tokens += row.input_tokens;
    totals.output_tokens += row.output_tokens;
  }
  return { data, totals };
}
