import type { NodeAttempt, RunResult } from "@app/workflow";
import type { NodeAttemptJson, NodeRunRow, RunRow } from "../schema.ts";

/** A stored run as the API answers it (GET /api/runs/{id}); blocking runs answer the same shape. */
export function runJson(row: Omit<RunRow, "graph">, nodes: NodeRunRow[] | undefined) {
  return {
    id: row.id,
    workflow_id: row.workflowId,
    status: row.status,
    trigger: row.trigger,
    version: row.version,
    app_id: row.appId,
    end_user_id: row.endUserId,
    replay_of: row.replayOf,
    schedule_id: row.scheduleId ?? null,
    scheduled_for: row.scheduledFor?.toISOString() ?? null,
    inputs: row.inputs,
    outputs: row.outputs ?? null,
    error: row.error ?? null,
    steps: row.steps,
    usage: { input_tokens: row.inputTokens, output_tokens: row.outputTokens },
    started_at: row.startedAt.toISOString(),
    finished_at: row.finishedAt?.toISOString() ?? null,
    elapsed_ms: row.elapsedMs ?? null,
    ...(nodes
      ? {
          nodes: nodes.map((node) => ({
            node_id: node.nodeId,
            node_type: node.nodeType,
            status: node.status,
            step: node.step ?? null,
            inputs: node.inputs ?? null,
            outputs: node.outputs ?? null,
            error: node.error ?? null,
            logs: node.logs ?? null,
            attempts: node.attempts ?? null,
            tokens: { input_tokens: node.inputTokens, output_tokens: node.outputTokens },
            started_at: node.startedAt?.toISOString() ?? null,
            finished_at: node.finishedAt?.toISOString() ?? null,
            elapsed_ms: node.elapsedMs ?? null,
          })),
        }
      : {}),
  };
}

/** The answer of a blocking run, built from the engine's result without reading it back. */
export function finishedRunJson(
  result: RunResult,
  context: {
    workflowId: string;
    trigger: RunRow["trigger"];
    inputs: Record<string, unknown>;
    version?: number | null | undefined;
    appId?: string | null | undefined;
    endUserId?: string | null | undefined;
    replayOf?: string | null | undefined;
  },
) {
  const nodes = [...result.nodes].sort(
    (a, b) => (a.step ?? 2_147_483_647) - (b.step ?? 2_147_483_647) || a.node_id.localeCompare(b.node_id),
  );
  return {
    id: result.run_id,
    workflow_id: context.workflowId,
    status: result.status,
    trigger: context.trigger,
    version: context.version ?? null,
    app_id: context.appId ?? null,
    end_user_id: context.endUserId ?? null,
    replay_of: context.replayOf ?? null,
    schedule_id: null,
    scheduled_for: null,
    inputs: context.inputs,
    outputs: result.outputs,
    error: result.error,
    steps: result.steps,
    usage: { input_tokens: result.usage.input_tokens ?? 0, output_tokens: result.usage.output_tokens ?? 0 },
    started_at: result.started_at.toISOString(),
    finished_at: result.finished_at.toISOString(),
    elapsed_ms: Math.round(result.elapsed_ms),
    nodes: nodes.map((node) => ({
      node_id: node.node_id,
      node_type: node.node_type,
      status: node.status,
      step: node.step,
      inputs: node.inputs ?? null,
      outputs: node.outputs,
      error: node.error,
      logs: node.logs,
      attempts: node.attempts?.map(attemptJson) ?? null,
      tokens: { input_tokens: node.usage?.input_tokens ?? 0, output_tokens: node.usage?.output_tokens ?? 0 },
      started_at: node.started_at?.toISOString() ?? null,
      finished_at: node.finished_at?.toISOString() ?? null,
      elapsed_ms: node.elapsed_ms === null ? null : Math.round(node.elapsed_ms),
    })),
  };
}

/**
 * An attempt as stored and answered.
 *
 * @example attemptJson({ attempt: 1, error: null, started_at: new Date(), elapsed_ms: 12.4 }) // { …, started_at: "2026-…Z", elapsed_ms: 12 }
 */
export function attemptJson(attempt: NodeAttempt): NodeAttemptJson {
  return {
    attempt: attempt.attempt,
    error: attempt.error,
    started_at: attempt.started_at.toISOString(),
    elapsed_ms: Math.round(attempt.elapsed_ms),
  };
}
