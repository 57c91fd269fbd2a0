import type { WorkflowVersionRow } from "./schema.ts";

export function toWorkflowVersionJson(row: WorkflowVersionRow) {
  return {
    workflow_id: row.workflowId,
    version: row.version,
    notes: row.notes,
    created_by: row.createdBy,
    created_at: row.createdAt.toISOString(),
    name: row.name,
    description: row.description,
    graph: row.graph,
    evaluation_gate: row.gateResult,
  };
}
