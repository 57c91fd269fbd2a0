import { preparedQuery } from "@app/db";
import type { ModelMessage } from "ai";
import { and, eq, sql } from "drizzle-orm";
import type { CredentialRow } from "../credentials/schema.ts";
import { credentials } from "../credentials/schema.ts";
import type { BuilderDb } from "../db/index.ts";
import { agentAtVersion } from "./agent-versions.ts";
import { memoryWindow } from "./conversation-memory.ts";
import type { AgentRow, AgentVersionRow, ConversationRow } from "./schema.ts";
import { agents, agentVersions, conversations, messages } from "./schema.ts";

/** What a turn reads before it calls the model. */
export interface TurnContext {
  /** The agent as the turn runs it: the draft, or the asked-for version's content over it. */
  agent: AgentRow;
  /** The version the turn runs; undefined for the draft. */
  version: AgentVersionRow | undefined;
  /** The workspace's newest credential for the agent's provider, as `resolveProviderAccess` picks. */
  credential: CredentialRow | undefined;
  /** The conversation asked for, when it is this agent's, with its memory window (oldest first). */
  continued: ContinuedConversation | undefined;
}

export interface ContinuedConversation {
  conversation: ConversationRow;
  history: ModelMessage[];
  /** The newest stored message's time; the next turn's messages must sort after it. */
  lastAt: Date | null;
}

/** A stored message of the memory window as the statement's JSON has it. */
interface MemoryJson {
  role: string;
  content: string;
  modelMessages: unknown;
  createdAt: string;
}

const turnContext = preparedQuery((db: BuilderDb) => {
  // The window comes as one JSON array, newest first, so the row is not repeated per message
  // (decoding the agent's columns twenty times costs more than the statement on PGlite). LIMIT may
  // read the outer row: each agent's own window.
  const memory = sql<MemoryJson[] | null>`(
    select json_agg(json_build_object('role', m.role, 'content', m.content,
      'modelMessages', m.model_messages, 'createdAt', m.created_at) order by m.id desc)
    from (select id, role, content, model_messages, created_at from ${messages}
      where conversation_id = ${conversations.id}
      order by id desc limit greatest(coalesce((${agentVersions.snapshot}->>'memoryTurns')::int,
        ${agents.memoryTurns}) * 2, 1)) m)`;
  return db
    .select({
      agent: agents,
      version: agentVersions,
      credential: credentials,
      conversation: conversations,
      memory,
    })
    .from(agents)
    .leftJoin(
      agentVersions,
      and(
        eq(agentVersions.agentId, agents.id),
        eq(
          agentVersions.version,
          sql`coalesce(${sql.placeholder("version")}::int,
            case when ${sql.placeholder("isPublished")}::boolean then ${agents.publishedVersion} end)`,
        ),
      ),
    )
    .leftJoin(
      credentials,
      eq(
        credentials.id,
        sql`(select c.id from ${credentials} c where c.workspace_id = ${agents.workspaceId}
          and c.provider = coalesce(${agentVersions.snapshot}->>'provider', ${agents.provider})
          order by c.id desc limit 1)`,
      ),
    )
    .leftJoin(
      conversations,
      and(
        eq(conversations.id, sql.placeholder("conversationId")),
        eq(conversations.agentId, agents.id),
        eq(conversations.workspaceId, agents.workspaceId),
      ),
    )
    .where(
      and(eq(agents.id, sql.placeholder("agentId")), eq(agents.workspaceId, sql.placeholder("workspaceId"))),
    )
    .limit(1);
});

/**
 * The workspace's agent (as `version` asks: a number, "published" for the newest published version
 * or the draft when never published, absent for the draft) with the credential its turn would use
 * and, with `conversationId`, that conversation of the agent with its memory window: one prepared
 * statement, since all of it is on the path to a chat's first token. Undefined when the workspace
 * has no such agent, `"version_not_found"` when the numbered version does not exist; `continued`
 * is undefined when the conversation is missing or belongs to another agent or workspace.
 *
 * @example const context = await findTurnContext(db, workspaceId, { agentId, conversationId, version: "published" });
 */
export async function findTurnContext(
  db: BuilderDb,
  workspaceId: string,
  ids: { agentId: string; conversationId?: string | undefined; version?: number | "published" | undefined },
): Promise<TurnContext | "version_not_found" | undefined> {
  const [row] = await turnContext(db).execute({
    agentId: ids.agentId,
    workspaceId,
    conversationId: ids.conversationId ?? null,
    version: typeof ids.version === "number" ? ids.version : null,
    isPublished: ids.version === "published",
  });
  if (!row) return undefined;
  const { credential, conversation, memory, version } = row;
  if (typeof ids.version === "number" && !version) return "version_not_found";
  const agent = version ? agentAtVersion(row.agent, version) : row.agent;
  const found = { agent, version: version ?? undefined, credential: credential ?? undefined };
  if (!conversation) return { ...found, continued: undefined };
  const stored = (memory ?? []).map((message) => ({ ...message, createdAt: new Date(message.createdAt) }));
  return { ...found, continued: { conversation, ...memoryWindow(stored, agent.memoryTurns) } };
}
