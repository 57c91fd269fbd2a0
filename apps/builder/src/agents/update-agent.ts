import type { Clock } from "@app/core";
import { and, eq } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import { nextRevision, revisionCondition } from "../versions/revisions.ts";
import type { UpdateAgentInput } from "./contract.ts";
import type { AgentRow } from "./schema.ts";
import { agents } from "./schema.ts";

export async function updateAgent(
  { db, clock }: { db: BuilderDb; clock: Clock },
  workspaceId: string,
  id: string,
  input: UpdateAgentInput,
  expected?: Date[],
): Promise<AgentRow | undefined> {
  const [row] = await db
    .update(agents)
    .set({
      ...(input.name === undefined ? {} : { name: input.name }),
      ...(input.description === undefined ? {} : { description: input.description }),
      ...(input.provider === undefined ? {} : { provider: input.provider }),
      ...(input.model === undefined ? {} : { model: input.model }),
      ...(input.instructions === undefined ? {} : { instructions: input.instructions }),
      ...(input.temperature === undefined ? {} : { temperature: input.temperature }),
      ...(input.tools === undefined ? {} : { tools: input.tools }),
      ...(input.knowledge_base_ids === undefined ? {} : { knowledgeBaseIds: input.knowledge_base_ids }),
      ...(input.memory_turns === undefined ? {} : { memoryTurns: input.memory_turns }),
      ...(input.mcp_exposed === undefined ? {} : { mcpExposed: input.mcp_exposed }),
      ...(input.evaluation_gate === undefined ? {} : { evaluationGate: input.evaluation_gate }),
      ...(input.annotation_reply === undefined ? {} : { annotationReply: input.annotation_reply }),
      updatedAt: nextRevision(agents.updatedAt, clock.now()),
    })
    .where(
      and(
        eq(agents.id, id),
        eq(agents.workspaceId, workspaceId),
        revisionCondition(agents.updatedAt, expected),
      ),
    )
    .returning();
  return row;
}
