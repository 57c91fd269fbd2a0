import { resolveStartInputs, WorkflowGraphError } from "@app/workflow";
import { graphError, WorkflowErrors } from "./errors.ts";
import type { WorkflowRunner } from "./runs/workflow-runner.ts";
import type { WorkflowRow } from "./schema.ts";

/** Rejects before a run record exists when the graph cannot run now or the inputs do not fit. */
export function checkRunnable(
  runner: WorkflowRunner,
  workflow: WorkflowRow,
  inputs: Record<string, unknown>,
  version?: number,
): void {
  let start: { inputs: Parameters<typeof resolveStartInputs>[0]["inputs"] };
  try {
    start = runner.compile(workflow, version).start.data;
  } catch (error) {
    if (error instanceof WorkflowGraphError) throw graphError(error.issues);
    throw error;
  }
  const resolved = resolveStartInputs(start, inputs);
  if (!resolved.ok) {
    throw WorkflowErrors.INVALID_INPUTS({
      message: `The run's inputs do not match the start node: ${resolved.issues[0]?.message ?? ""}`,
      ...(resolved.issues[0] ? { param: resolved.issues[0].path } : {}),
      details: resolved.issues.map((issue) => ({
        path: issue.path,
        message: issue.message,
        code: issue.code,
      })),
    });
  }
}
