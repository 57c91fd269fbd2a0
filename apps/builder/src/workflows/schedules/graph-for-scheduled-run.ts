import type { WorkflowRow } from "../schema.ts";

/**
 * The workflow as a schedule's tick runs it. A schedule runs the workflow's published version when
 * it has one, else its draft; until workflows have versions that is the draft graph, as every other
 * trigger runs. This is the one place that changes when they do (the claim stores the graph it
 * answers on the run row). The runner caches compiled graphs by workflow id and `updatedAt`: a
 * published version answered here needs a key of its own there.
 *
 * @example const toRun = graphForScheduledRun(workflow); await runner.run({ workflow: toRun, … });
 */
export function graphForScheduledRun(workflow: WorkflowRow): WorkflowRow {
  return workflow;
}
