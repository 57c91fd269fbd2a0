import { findTurnContext } from "../agents/find-turn-context.ts";
import { prepareAgentTurn, type TurnSpending } from "../agents/prepare-agent-turn.ts";
import { runAgentTurn } from "../agents/run-agent-turn.ts";
import type { Deps } from "../deps.ts";
import { findWorkflow } from "../workflows/find-workflow.ts";
import type { WorkflowRunner } from "../workflows/runs/workflow-runner.ts";
import { workflowToRun } from "../workflows/workflow-versions.ts";
import type { EvaluationResultRow, EvaluationRow } from "./schema.ts";

/** What the target answered for one row, and what it cost. */
export interface TargetOutcome {
  output: string;
  latencyMs: number;
  credits: number | null;
  inputTokens: number;
  outputTokens: number;
}

/** The target could not answer the row; the row fails with this message (not retried). */
export class TargetError extends Error {
  override name = "TargetError";
}

export type TargetDeps = Pick<Deps, "db" | "clock" | "config" | "logger" | "ai" | "agentTools">;

/**
 * Runs an evaluation's target on one row through the same machinery as chat and runs: an agent's turn
 * in a new conversation (so it is billed and logged like any turn), or a workflow run with trigger
 * `evaluation`. A workflow's output is its outputs' `text` or `answer` field when it has one, else
 * their JSON.
 *
 * @example const outcome = await runTarget(deps, runner, evaluation, row, signal);
 */
export async function runTarget(
  deps: TargetDeps,
  runner: WorkflowRunner,
  evaluation: EvaluationRow,
  row: EvaluationResultRow,
  signal: AbortSignal,
): Promise<TargetOutcome> {
  const started = performance.now();
  const workspaceId = evaluation.workspaceId;
  if (evaluation.targetKind === "agent") {
    if (row.input === null) throw new TargetError("an agent's row needs an input");
    const context = await findTurnContext(deps.db, workspaceId, {
      agentId: evaluation.targetId,
      version: evaluation.version ?? undefined,
    });
    if (!context) throw new TargetError("the agent no longer exists");
    if (context === "version_not_found")
      throw new TargetError(`the agent has no version ${evaluation.version}`);
    let spent: TurnSpending | undefined;
    const prepared = await prepareAgentTurn(deps, workspaceId, context, { message: row.input }, 0, {
      spentWrites: (spending) => {
        spent = spending;
        return [];
      },
    });
    const events = runAgentTurn(deps, prepared, signal);
    let next = await events.next();
    while (!next.done) next = await events.next();
    return {
      output: next.value.message.content,
      latencyMs: Math.round(performance.now() - started),
      credits: spent?.credits ?? 0,
      inputTokens: next.value.usage.input_tokens,
      outputTokens: next.value.usage.output_tokens,
    };
  }
  const draft = await findWorkflow(deps.db, workspaceId, evaluation.targetId);
  if (!draft) throw new TargetError("the workflow no longer exists");
  const chosen = await workflowToRun(deps.db, draft, evaluation.version ?? undefined);
  if (chosen === "version_not_found")
    throw new TargetError(`the workflow has no version ${evaluation.version}`);
  const result = await runner.run({
    workspaceId,
    workflow: chosen.workflow,
    version: chosen.version,
    inputs: row.inputs ?? (row.input === null ? {} : { input: row.input }),
    trigger: "evaluation",
  });
  if (result.status !== "succeeded") {
    throw new TargetError(
      result.error ? `${result.error.code}: ${result.error.message}` : `the run ${result.status}`,
    );
  }
  return {
    output: workflowOutput(result.outputs),
    latencyMs: Math.round(performance.now() - started),
    credits: null,
    inputTokens: result.usage.input_tokens ?? 0,
    outputTokens: result.usage.output_tokens ?? 0,
  };
}

function workflowOutput(outputs: Record<string, unknown> | null): string {
  if (!outputs) return "";
  for (const key of ["text", "answer", "output", "result"]) {
    const value = outputs[key];
    if (typeof value === "string") return value;
  }
  const values = Object.values(outputs);
  if (values.length === 1 && typeof values[0] === "string") return values[0];
  return JSON.stringify(outputs);
}
