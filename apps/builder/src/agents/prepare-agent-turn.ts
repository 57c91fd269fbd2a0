import type { ModelMessage } from "ai";
import { requireCredits } from "../billing/meter.ts";
import type { CredentialRow } from "../credentials/credential-json.ts";
import { accessFromCredential, type ResolvedAccess } from "../credentials/resolve-provider-access.ts";
import type { Deps } from "../deps.ts";
import type { AgentRow } from "./agents.ts";
import { ChatErrors } from "./chat-errors.ts";
import type { ConversationRow } from "./conversation-json.ts";
import { findConversationWithMemory } from "./conversation-memory.ts";
import { startConversation } from "./start-conversation.ts";

export interface PreparedTurn {
  workspaceId: string;
  agent: AgentRow;
  access: ResolvedAccess;
  conversation: ConversationRow;
  /** Settles once the conversation row exists (at once for an existing conversation). */
  conversationStored: Promise<void>;
  history: ModelMessage[];
  /** The newest stored message's time; this turn's messages must sort after it. */
  lastAt: Date | null;
  message: string;
  /** 0 for a chat turn; the nesting depth when a workflow's run_agent tool asked for it. */
  depth: number;
}

/**
 * Everything a turn needs before the model is called: credits (when enforced), the key, the
 * conversation (new or the caller's own) and its memory window. Failing here answers a plain HTTP error even to a
 * streaming client, because no event has been sent yet.
 *
 * @example const prepared = await prepareAgentTurn(deps, workspaceId, await findAgentForTurn(db, workspaceId, id), { message: "Hi" });
 */
export async function prepareAgentTurn(
  deps: Pick<Deps, "db" | "clock" | "config">,
  workspaceId: string,
  { agent, credential }: { agent: AgentRow; credential: CredentialRow | undefined },
  request: { message: string; conversation_id?: string | undefined },
  depth = 0,
): Promise<PreparedTurn> {
  await requireCredits(deps, workspaceId, { work: "This chat turn" });
  const access = await accessFromCredential(deps, agent.provider, credential);
  if (request.conversation_id) {
    const found = await findConversationWithMemory(
      deps.db,
      workspaceId,
      { id: request.conversation_id, agentId: agent.id },
      agent.memoryTurns,
    );
    if (!found) throw ChatErrors.CONVERSATION_NOT_FOUND({ param: "conversation_id" });
    const { conversation, history, lastAt } = found;
    return {
      workspaceId,
      agent,
      access,
      conversation,
      conversationStored: Promise.resolve(),
      history,
      lastAt,
      message: request.message,
      depth,
    };
  }
  const { row, stored } = startConversation(deps, workspaceId, agent.id, request.message);
  return {
    workspaceId,
    agent,
    access,
    conversation: row,
    conversationStored: stored,
    history: [],
    lastAt: null,
    message: request.message,
    depth,
  };
}
