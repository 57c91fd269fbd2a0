import type { AgentTool } from "./contract.ts";
import type { AgentVersionRow } from "./schema.ts";

export function toAgentVersionJson(row: AgentVersionRow) {
  const { snapshot } = row;
  return {
    agent_id: row.agentId,
    version: row.version,
    notes: row.notes,
    created_by: row.createdBy,
    created_at: row.createdAt.toISOString(),
    name: snapshot.name,
    description: snapshot.description,
    provider: snapshot.provider,
    model: snapshot.model,
    instructions: snapshot.instructions,
    temperature: snapshot.temperature,
    tools: snapshot.tools as AgentTool[],
    knowledge_base_ids: snapshot.knowledgeBaseIds,
    memory_turns: snapshot.memoryTurns,
    evaluation_gate: row.gateResult,
  };
}
