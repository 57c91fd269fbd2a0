import { toPublishingJson } from "../versions/contract.ts";
import type { AgentTool } from "./contract.ts";
import type { AgentRow } from "./schema.ts";

export function toAgentJson(row: AgentRow) {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    provider: row.provider,
    model: row.model,
    instructions: row.instructions,
    temperature: row.temperature,
    tools: row.tools as AgentTool[],
    knowledge_base_ids: row.knowledgeBaseIds,
    memory_turns: row.memoryTurns,
    mcp_exposed: row.mcpExposed,
    evaluation_gate: row.evaluationGate,
    annotation_reply: row.annotationReply ?? null,
    ...toPublishingJson(row),
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}
