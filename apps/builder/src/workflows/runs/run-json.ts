import type { NodeAttempt, PendingApproval, RunResult } from "@app/workflow";
import type { ApprovalRow, NodeAttemptJson, NodeRunRow, RunRow } from "../schema.ts";

/** A node a waiting run waits at, as the API answers it (the run's `pending`). */
export interface PendingJson {
  node_id: string;
  node_type: string;
  title: string | null;
  input: unknown;
  requested_at: string;
  expires_at: string | null;
}

/** A paused node of a run's result as the API answers it. */
export function pendingJson(pending: PendingApproval): PendingJson {
  return {
    node_id: pending.node_id,
    node_type: pending.node_type,
    title: pending.title ?? null,
    input: pending.input ?? null,
    requested_at: pending.requested_at.toISOString(),
    expires_at: pending.expires_at?.toISOString() ?? null,
  };
}

/** A stored pending approval as the API answers it in its run's `pending`. */
export function storedPendingJson(row: ApprovalRow): PendingJson {
  return {
    node_id: row.nodeId,
    node_type: row.nodeType,
    title: row.title,
    input: row.input ?? null,
    requested_at: row.requestedAt.toISOString(),
    expires_at: row.expiresAt?.toISOString() ?? null,
  };
}

/**
 * A stored run as the API answers it (GET /api/runs/{id}); blocking runs answer the same shape.
 * `pending`, the approvals a waiting run waits for, is shown when given.
 */
export function runJson(
  row: Omit<RunRow, "graph">,
  nodes: NodeRunRow[] | undefined,
  pending?: ApprovalRow[],
) {
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
    ...(pending ? { pending: pending.map(storedPendingJson) } : {}),
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
    scheduleId?: string | null | undefined;
    scheduledFor?: Date | null | undefined;
  },
) {
  const isWaiting = result.status === "waiting";
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
    schedule_id: context.scheduleId ?? null,
    scheduled_for: context.scheduledFor?.toISOString() ?? null,
    inputs: context.inputs,
    outputs: result.outputs,
    error: result.error,
    steps: result.steps,
    usage: { input_tokens: result.usage.input_tokens ?? 0, output_tokens: result.usage.output_tokens ?? 0 },
    started_at: result.started_at.toISOString(),
    finished_at: isWaiting ? null : result.finished_at.toISOString(),
    elapsed_ms: isWaiting ? null : Math.round(result.elapsed_ms),
    pending: result.pending.map(pendingJson),
    nodes: [
      ...nodes.map((node) => ({
        node_id: node.node_id,
        node_type: node.node_type,
        status: node.status as "succeeded" | "failed" | "skipped" | "waiting",
        step: node.step,
        inputs: node.inputs ?? null,
        outputs: node.outputs,
        error: node.error,
        logs: node.logs,
        attempts: node.attempts?.map(attemptJson) ?? null,
        tokens: {
          input_tokens: node.usage?.input_tokens ?? 0,
          output_tokens: node.usage?.output_tokens ?? 0,
        },
        started_at: node.started_at?.toISOString() ?? null,
        finished_at: node.finished_at?.toISOString() ?? null,
        elapsed_ms: node.elapsed_ms === null ? null : Math.round(node.elapsed_ms),
      })),
      ...waitingNodes(result),
    ],
  };
}

/** The nodes a waiting result paused at, as node records (`status: "waiting"`, `inputs` the request). */
function waitingNodes(result: RunResult) {
  return result.pending.map((pending) => ({
    node_id: pending.node_id,
    node_type: pending.node_type,
    status: "waiting" as const,
    step: pending.step,
    inputs: pending.input ?? null,
    outputs: null,
    error: null,
    logs: null,
    attempts: null,
    tokens: { input_tokens: 0, output_tokens: 0 },
    started_at: pending.requested_at.toISOString(),
    finished_at: null,
    elapsed_ms: null,
  }));
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
