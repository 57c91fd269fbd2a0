import type { ModelMessage } from "ai";
import type { SQLWrapper } from "drizzle-orm";
import { type AnnotationMatch, findAnnotationReply } from "../annotations/find-annotation-reply.ts";
import { requireCredits } from "../billing/meter.ts";
import { accessFromCredential, type ResolvedAccess } from "../credentials/resolve-provider-access.ts";
import type { Deps } from "../deps.ts";
import { AgentErrors } from "./errors.ts";
import type { TurnContext } from "./find-turn-context.ts";
import { type EndUserRef, newConversation } from "./new-conversation.ts";
import type { AgentRow, ConversationRow, ConversationSource } from "./schema.ts";

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
  /** The agent version the turn runs; null for the draft. */
  version: number | null;
  /** Writes stored with the turn's model calls, given what the turn spent (an app's per-end-user usage). */
  spentWrites?: ((spent: TurnSpending) => SQLWrapper[]) | undefined;
  /** The annotation that answers instead of the model (the agent's annotation_reply), if one does. */
  annotation?: AnnotationMatch | undefined;
  /** When the turn began (performance.now()), for the answer's latency. */
  startedAt: number;
}

/** What a turn's model calls cost: the credits booked and the tokens. */
export interface TurnSpending {
  credits: number;
  inputTokens: number;
  outputTokens: number;
}

/** Who is asking, beyond the workspace: an app's end user, and writes to store with what they spent. */
export interface TurnRequester {
  endUser?: EndUserRef | undefined;
  /** Where a new conversation is held (the logs' `source`); by default `app` for an end user, else `api`. */
  source?: ConversationSource | undefined;
  spentWrites?: ((spent: TurnSpending) => SQLWrapper[]) | undefined;
}

/**
 * Everything a turn needs before the model is called: credits (when enforced), the key, the
 * conversation (new or the caller's own) and its memory window. Failing here answers a plain HTTP error even to a
 * streaming client, because no event has been sent yet.
 *
 * @example const prepared = await prepareAgentTurn(deps, workspaceId, context, { message: "Hi" }); // context from findTurnContext
 */
export async function prepareAgentTurn(
  deps: Pick<Deps, "db" | "clock" | "config" | "logger">,
  workspaceId: string,
  { agent, version: agentVersion, credential, continued }: TurnContext,
  request: { message: string; conversation_id?: string | undefined },
  depth = 0,
  requester: TurnRequester = {},
): Promise<PreparedTurn> {
  const startedAt = performance.now();
  await requireCredits(deps, workspaceId, { work: "This chat turn" });
  const access = await accessFromCredential(deps, agent.provider, credential);
  const annotation = await findAnnotationReply(
    deps,
    workspaceId,
    agent.id,
    agent.annotationReply,
    request.message,
  );
  const version = agentVersion?.version ?? null;
  const { endUser, spentWrites, source } = requester;
  if (request.conversation_id) {
    // An end user continues only their own conversations of this app; anything else is not found.
    const isOwn =
      !endUser ||
      (continued?.conversation.appId === endUser.appId &&
        continued.conversation.endUserId === endUser.endUserId);
    if (continued?.conversation.id !== request.conversation_id || !isOwn) {
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
      version,
      spentWrites,
      annotation,
      startedAt,
    };
  }
  const conversation = newConversation(deps, workspaceId, agent.id, request.message, {
    version,
    endUser,
    source,
  });
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
    version,
    spentWrites,
    annotation,
    startedAt,
  };
}
