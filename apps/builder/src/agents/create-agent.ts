import { type Clock, newId } from "@app/core";
import type { BuilderDb } from "../db/index.ts";
import type { CreateAgentInput } from "./contract.ts";
import type { AgentRow } from "./schema.ts";
import { agents } from "./schema.ts";

export async function createAgent(
  { db, clock }: { db: BuilderDb; clock: Clock },
  workspaceId: string,
  input: CreateAgentInput,
): Promise<AgentRow> {
  const now = clock.now();
  const [row] = await db
    .insert(agents)
    .values({
      id: newId("agt", now.getTime()),
      workspaceId,
      name: input.name,
      description: input.description,
      provider: input.provider,
      model: input.model,
      instructions: input.instructions,
      temperature: input.temperature,
      tools: input.tools,
      knowledgeBaseIds: input.knowledge_base_ids,
      memoryTurns: input.memory_turns,
      mcpExposed: input.mcp_exposed,
      annotationReply: input.annotation_reply,
      createdAt: now,
      updatedAt: now,
    })
    .returning();
  if (!row) throw new Error("insert returned no row");
  return row;
}
