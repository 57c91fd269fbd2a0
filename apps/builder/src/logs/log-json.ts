import { toConversationJson } from "../agents/conversation-json.ts";
import type { LoggedConversation } from "../agents/log-conversations.ts";
import type { EndUserRow } from "../apps/schema.ts";

/**
 * A conversation as the logs list it: the conversation, its end user and what its messages add up to.
 *
 * @example toPage(rows, limit, (row) => toLoggedConversationJson(row, endUsers.get(row.endUserId ?? "")));
 */
export function toLoggedConversationJson(row: LoggedConversation, endUser: EndUserRow | undefined) {
  return {
    ...toConversationJson(row),
    end_user: endUser
      ? { id: endUser.id, kind: endUser.kind, external_id: endUser.externalId, name: endUser.name }
      : null,
    message_count: row.messageCount,
    likes: row.likes,
    dislikes: row.dislikes,
    last_message_at: row.lastMessageAt?.toISOString() ?? null,
  };
}
