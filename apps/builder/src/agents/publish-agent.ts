import type { Clock } from "@app/core";
import { and, eq, sql } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import type { GateResult } from "../versions/evaluation-gate.ts";
import { type AgentRow, type AgentSnapshot, type AgentVersionRow, agents, agentVersions } from "./schema.ts";

/**
 * Publishes the agent's draft as its next version (1, 2, 3…). The update that takes the number locks
 * the agent's row, so two publishes at once get two numbers and each snapshots the draft it saw.
 * Undefined when the workspace has no such agent.
 *
 * @example const version = await publishAgent({ db, clock }, workspaceId, agentId, { notes: "Shorter answers", userId });
 */
export async function publishAgent(
  { db, clock }: { db: BuilderDb; clock: Clock },
  workspaceId: string,
  agentId: string,
  input: { notes: string; userId: string | null; gateResult?: GateResult | null },
): Promise<AgentVersionRow | undefined> {
  const now = clock.now();
  return db.transaction(async (tx) => {
    const [agent] = await tx
      .update(agents)
      .set({ publishedVersion: sql`coalesce(${agents.publishedVersion}, 0) + 1`, publishedAt: now })
      .where(and(eq(agents.id, agentId), eq(agents.workspaceId, workspaceId)))
      .returning();
    if (!agent?.publishedVersion) return undefined;
    const [version] = await tx
      .insert(agentVersions)
      .values({
        agentId,
        version: agent.publishedVersion,
        workspaceId,
        notes: input.notes,
        snapshot: agentSnapshot(agent),
        gateResult: input.gateResult ?? null,
        createdBy: input.userId,
        createdAt: now,
      })
      .returning();
    return version;
  });
}

/**
 * What a version keeps of an agent.
 *
 * @example const snapshot = agentSnapshot(row);
 */
export function agentSnapshot(agent: AgentRow): AgentSnapshot {
  return {
    name: agent.name,
    description: agent.description,
    provider: agent.provider,
    model: agent.model,
    instructions: agent.instructions,
    temperature: agent.temperature,
    tools: agent.tools,
    knowledgeBaseIds: agent.knowledgeBaseIds,
    memoryTurns: agent.memoryTurns,
  };
}
