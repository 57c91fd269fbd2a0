import { eq } from "drizzle-orm";
import type { Deps } from "../../deps.ts";
import { checkRunnable } from "../check-runnable.ts";
import { findWorkflow } from "../find-workflow.ts";
import { workflows } from "../schema.ts";
import { workflowToRun } from "../workflow-versions.ts";
import type { FailedRun, WorkflowRunner } from "./workflow-runner.ts";

/**
 * The inputs an error workflow's run gets: the failed run's id and workflow, its error, and the node
 * it failed at (left out when it failed outside a node: a run timeout, an interruption).
 *
 * @example errorWorkflowInputs(run) // { run_id: "run_…", workflow_id: "wf_…", error: { code, message, node_id }, failed_node: { id, type, title } }
 */
export function errorWorkflowInputs(run: FailedRun): Record<string, unknown> {
  const nodeId = run.error?.node_id;
  const node = nodeId === undefined ? undefined : run.graph.nodes.find((entry) => entry.id === nodeId);
  return {
    run_id: run.id,
    workflow_id: run.workflowId,
    error: run.error,
    // Left out rather than null, so an optional `object` input accepts it (it then reads as null).
    ...(node ? { failed_node: { id: node.id, type: node.type, title: node.data.title ?? null } } : {}),
  };
}

/**
 * Starts the failed run's workflow's error workflow (`error_workflow_id`), if it has one, with
 * `trigger: "error_workflow"`: its published version, or its draft if never published. A run of an
 * error workflow starts none (so failures cannot loop), nor does an error workflow whose Start node
 * refuses the inputs (logged). Answers the new run's id once it has ended, or undefined.
 *
 * @example await startErrorWorkflow(deps, runner, { ...run, error });
 */
export async function startErrorWorkflow(
  deps: Pick<Deps, "db" | "logger">,
  runner: WorkflowRunner,
  failed: FailedRun,
): Promise<string | undefined> {
  if (failed.trigger === "error_workflow") return undefined;
  const [source] = await deps.db
    .select({ errorWorkflowId: workflows.errorWorkflowId })
    .from(workflows)
    .where(eq(workflows.id, failed.workflowId));
  const errorWorkflowId = source?.errorWorkflowId;
  if (!errorWorkflowId || errorWorkflowId === failed.workflowId) return undefined;
  const draft = await findWorkflow(deps.db, failed.workspaceId, errorWorkflowId);
  if (!draft) return undefined;
  const chosen = await workflowToRun(deps.db, draft, "published");
  if (chosen === "version_not_found") return undefined;
  const { workflow, version } = chosen;
  const inputs = errorWorkflowInputs(failed);
  try {
    checkRunnable(runner, workflow, inputs, version);
  } catch (error) {
    deps.logger.warn(
      { err: error, run_id: failed.id, error_workflow_id: workflow.id },
      "the error workflow cannot run with the failure's inputs",
    );
    return undefined;
  }
  const result = await runner.run({
    workspaceId: failed.workspaceId,
    workflow,
    version,
    inputs,
    trigger: "error_workflow",
    // Written at once, so it is on record while it runs like any background run.
    persistAtStart: true,
  });
  return result.run_id;
}
