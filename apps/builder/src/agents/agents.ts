import { type Clock, newId } from "@app/core";
import { newestFirst, type PageRequest } from "@app/db";
import { and, eq } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import type { AgentTool, CreateAgentInput, UpdateAgentInput } from "./contract.ts";
import type { AgentRow } from "./schema.ts";
import { agents } from "./schema.ts";

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
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

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
      createdAt: now,
      updatedAt: now,
    })
    .returning();
  if (!row) throw new Error("insert returned no row");
  return row;
}

/** The workspace's agent with this id, or undefined (another workspace's agent is not found either). */
export async function findAgent(
  db: BuilderDb,
  workspaceId: string,
  id: string,
): Promise<AgentRow | undefined> {
  const [row] = await db
    .select()
    .from(agents)
    .where(and(eq(agents.id, id), eq(agents.workspaceId, workspaceId)))
    .limit(1);
  return row;
}

/** Newest first; fetches `limit + 1` rows so the caller can tell whether more exist. */
export function listAgents(db: BuilderDb, workspaceId: string, page: PageRequest) {
  const newest = newestFirst(agents.id, page);
  return db
    .select()
    .from(agents)
    .where(and(eq(agents.workspaceId, workspaceId), newest.olderThanCursor))
    .orderBy(newest.order)
    .limit(newest.limit);
}

export async function updateAgent(
  { db, clock }: { db: BuilderDb; clock: Clock },
  workspaceId: string,
  id: string,
  input: UpdateAgentInput,
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
      updatedAt: clock.now(),
    })
    .where(and(eq(agents.id, id), eq(agents.workspaceId, workspaceId)))
    .returning();
  return row;
}

/**
 * The workspace's agents marked `mcp_exposed`, oldest first (the order their tools are listed in).
 *
 * @example const exposed = await listExposedAgents(db, "ws_1");
 */
export function listExposedAgents(db: BuilderDb, workspaceId: string) {
  return db
    .select({ id: agents.id, name: agents.name, description: agents.description })
    .from(agents)
    .where(and(eq(agents.workspaceId, workspaceId), eq(agents.mcpExposed, true)))
    .orderBy(agents.id)
    .limit(MAX_EXPOSED);
}

/** An MCP client lists every tool at once: a bound keeps that answer small. */
const MAX_EXPOSED = 200;

export async function deleteAgent(db: BuilderDb, workspaceId: string, id: string): Promise<boolean> {
  const deleted = await db
    .delete(agents)
    .where(and(eq(agents.id, id), eq(agents.workspaceId, workspaceId)))
    .returning({ id: agents.id });
  return deleted.length > 0;
}
