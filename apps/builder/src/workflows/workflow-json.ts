import { toPublishingJson } from "../versions/contract.ts";
import type { Role } from "../workspaces/roles.ts";
import { isAtLeast } from "../workspaces/roles.ts";
import type { WorkflowRow } from "./schema.ts";
import { triggerToken } from "./trigger-token.ts";

/** The trigger URL is a secret (anyone holding it starts runs): viewers get null. */
export function toWorkflowJson(
  row: WorkflowRow,
  context: { publicUrl: string; secretKey: string; role: Role },
) {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    graph: row.graph,
    trigger_url: isAtLeast(context.role, "editor")
      ? `${context.publicUrl}/api/hooks/${triggerToken(context.secretKey, row.id, row.triggerVersion)}`
      : null,
    mcp_exposed: row.mcpExposed,
    ...toPublishingJson(row),
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}
