import type { ModelMessage } from "ai";
import { requireCredits } from "../billing/meter.ts";
import { accessFromCredential, type ResolvedAccess } from "../credentials/resolve-provider-access.ts";
import type { Deps } from "../deps.ts";
import { AgentErrors } from "./errors.ts";
import type { TurnContext } from "./find-turn-context.ts";
import { newConversation } from "./new-conversation.ts";
import type { AgentRow, ConversationRow } from "./schema.ts";

export interface PreparedTurn {
  workspaceId: string;
  agent: AgentRow;
  access: ResolvedAccess;
  conversation: ConversationRow;
  /** A conversation this turn starts: it is stored with the turn. */
  isNewConversation: boolean;
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
 * @example const prepared = await prepareAgentTurn(deps, workspaceId, context, { message: "Hi" }); // context from findTurnContext
 */
export async function prepareAgentTurn(
  deps: Pick<Deps, "db" | "clock" | "config">,
  workspaceId: string,
  { agent, credential, continued }: TurnContext,
  request: { message: string; conversation_id?: string | undefined },
  depth = 0,
): Promise<PreparedTurn> {
  await requireCredits(deps, workspaceId, { work: "This chat turn" });
  const access = await accessFromCredential(deps, agent.provider, credential);
  if (request.conversation_id) {
    if (continued?.conversation.id !== request.conversation_id) {
      throw AgentErrors.CONVERSATION_NOT_FOUND({ param: "conversation_id" });
    }
    const { conversation, history, lastAt } = continued;
    return {
      workspaceId,
      agent,
      access,
      conversation,
      isNewConversation: false,
      history,
      lastAt,
      message: request.message,
      depth,
    };
  }
  const conversation = newConversation(deps, workspaceId, agent.id, request.message);
  return {
    workspaceId,
    agent,
    access,
    conversation,
    isNewConversation: true,
    history: [],
    lastAt: null,
    message: request.message,
    depth,
  };
}
