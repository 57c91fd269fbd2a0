import { toPublishingJson } from "../versions/contract.ts";
import type { WorkflowRow } from "./schema.ts";
import { triggerToken } from "./trigger-token.ts";

export function toWorkflowJson(row: WorkflowRow, context: { publicUrl: string; secretKey: string }) {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    graph: row.graph,
    trigger_url: `${context.publicUrl}/api/hooks/${triggerToken(context.secretKey, row.id, row.triggerVersion)}`,
    mcp_exposed: row.mcpExposed,
    evaluation_gate: row.evaluationGate,
    error_workflow_id: row.errorWorkflowId,
    ...toPublishingJson(row),
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}
