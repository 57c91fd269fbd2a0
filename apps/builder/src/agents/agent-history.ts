import type { Clock } from "@app/core";
import { and, eq } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import { changedFields, diffText } from "../versions/diff.ts";
import { nextRevision, revisionCondition } from "../versions/revisions.ts";
import { findAgentVersion } from "./agent-versions.ts";
import { agentSnapshot } from "./publish-agent.ts";
import { type AgentRow, type AgentSnapshot, agents } from "./schema.ts";

/** The agent's fields a diff compares, as the API names them, from a snapshot. */
function comparable(snapshot: AgentSnapshot): Record<string, unknown> {
  return {
    name: snapshot.name,
    description: snapshot.description,
    provider: snapshot.provider,
    model: snapshot.model,
    instructions: snapshot.instructions,
    temperature: snapshot.temperature,
    tools: snapshot.tools,
    knowledge_base_ids: snapshot.knowledgeBaseIds,
    memory_turns: snapshot.memoryTurns,
  };
}

const FIELDS = [
  "name",
  "description",
  "provider",
  "model",
  "instructions",
  "temperature",
  "tools",
  "knowledge_base_ids",
  "memory_turns",
] as const;

/**
 * The content of one side of a diff: the draft, or a published version (undefined when missing).
 *
 * @example const side = await agentSide(db, agent, 2);
 */
export async function agentSide(
  db: BuilderDb,
  agent: AgentRow,
  side: "draft" | number,
): Promise<AgentSnapshot | undefined> {
  if (side === "draft") return agentSnapshot(agent);
  return (await findAgentVersion(db, agent.workspaceId, agent.id, side))?.snapshot;
}

/**
 * What changed from `before` to `after`: every differing field with both values, the instructions
 * also as a line diff, and the knowledge bases added and removed.
 *
 * @example const diff = diffAgents(v1.snapshot, agentSnapshot(draft));
 */
export function diffAgents(before: AgentSnapshot, after: AgentSnapshot) {
  const fields = changedFields(comparable(before), comparable(after), FIELDS);
  const hasNewInstructions = fields.some((change) => change.field === "instructions");
  return {
    fields,
    instructions: hasNewInstructions ? diffText(before.instructions, after.instructions) : null,
    knowledge_bases: {
      added: after.knowledgeBaseIds.filter((id) => !before.knowledgeBaseIds.includes(id)),
      removed: before.knowledgeBaseIds.filter((id) => !after.knowledgeBaseIds.includes(id)),
    },
  };
}

/**
 * Makes a version's content the agent's draft (a write like any edit: a new revision, and `If-Match`
 * honoured); the history keeps every version. Undefined when the write was refused or found nothing.
 *
 * @example const row = await restoreAgent({ db, clock }, workspaceId, agentId, version.snapshot, expected);
 */
export async function restoreAgent(
  { db, clock }: { db: BuilderDb; clock: Clock },
  workspaceId: string,
  agentId: string,
  snapshot: AgentSnapshot,
  expected?: Date[],
): Promise<AgentRow | undefined> {
  const [row] = await db
    .update(agents)
    .set({ ...snapshot, updatedAt: nextRevision(agents.updatedAt, clock.now()) })
    .where(
      and(
        eq(agents.id, agentId),
        eq(agents.workspaceId, workspaceId),
        revisionCondition(agents.updatedAt, expected),
      ),
    )
    .returning();
  return row;
}
