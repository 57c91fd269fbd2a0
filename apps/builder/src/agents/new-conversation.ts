import { type Clock, newId } from "@app/core";
import type { ConversationRow, ConversationSource } from "./schema.ts";

const TITLE_LENGTH = 80;

/** An app's end user holding a conversation. */
export interface EndUserRef {
  appId: string;
  endUserId: string;
}

/** Where a conversation comes from: the agent version of its first turn, and an app's end user. */
export interface ConversationOrigin {
  version?: number | null | undefined;
  endUser?: EndUserRef | undefined;
  /** Where it is held; `app` when an end user holds it, else `api` unless told. */
  source?: ConversationSource | undefined;
}

/**
 * A new conversation with an agent, titled after its first message. It is not written here: the
 * turn stores it with its messages in one statement (`saveTurn`), or alone with the model calls of
 * a turn that failed, so a client that saw its id can continue it.
 *
 * @example const conversation = newConversation(deps, workspaceId, agentId, "How do refunds work?");
 */
export function newConversation(
  { clock }: { clock: Clock },
  workspaceId: string,
  agentId: string,
  firstMessage: string,
  origin: ConversationOrigin = {},
): ConversationRow {
  const now = clock.now();
  const oneLine = firstMessage.replace(/\s+/g, " ").trim();
  const title = oneLine.length > TITLE_LENGTH ? `${oneLine.slice(0, TITLE_LENGTH - 1)}…` : oneLine;
  return {
    id: newId("conv", now.getTime()),
    workspaceId,
    agentId,
    title: title || "New conversation",
    version: origin.version ?? null,
    appId: origin.endUser?.appId ?? null,
    endUserId: origin.endUser?.endUserId ?? null,
    source: origin.source ?? (origin.endUser ? "app" : "api"),
    createdAt: now,
    updatedAt: now,
  };
}
