import { toStorable } from "@app/core";
import { writeTogether } from "@app/db";
import { eq, type SQLWrapper } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import type { ConversationRow, MessageRow } from "./schema.ts";
import { conversations, messages } from "./schema.ts";

export type NewMessage = typeof messages.$inferInsert;

/**
 * Stores a finished turn in one statement: the user's message and the agent's answer (so memory
 * never sees half a turn), the conversation (a new one, or an existing one's new `updated_at`),
 * and `also`, the turn's other writes (its model calls and their charge). Answers the two messages
 * as stored.
 *
 * @example const [user, assistant] = await saveTurn(db, { conversation, isNew: false }, userMessage, assistantMessage, usageWrites.writes);
 */
export async function saveTurn(
  db: BuilderDb,
  turn: { conversation: ConversationRow; isNew: boolean },
  user: NewMessage,
  assistant: NewMessage,
  also: readonly SQLWrapper[] = [],
): Promise<[MessageRow, MessageRow]> {
  // The answer and its tool results come from a model and from tools: made storable (U+FFFD for
  // NUL and lone surrogates) so the turn is always saved, and answered as saved.
  const userRow = toStorable(user);
  const assistantRow = toStorable(assistant);
  await writeTogether(db, [
    conversationWrite(db, turn.conversation, turn.isNew, assistant.createdAt),
    db.insert(messages).values([userRow, assistantRow]),
    ...also,
  ]);
  return [storedMessage(userRow), storedMessage(assistantRow)];
}

/**
 * The write that brings a conversation up to `updatedAt`: its insert when it is new, else the
 * update of its `updated_at`.
 *
 * @example await writeTogether(db, [conversationWrite(db, conversation, true, conversation.updatedAt), ...usageWrites.writes]);
 */
export function conversationWrite(
  db: BuilderDb,
  conversation: ConversationRow,
  isNew: boolean,
  updatedAt: Date,
): SQLWrapper {
  if (isNew) return db.insert(conversations).values({ ...conversation, updatedAt });
  return db.update(conversations).set({ updatedAt }).where(eq(conversations.id, conversation.id));
}

/** The row an insert of `message` stores: the columns it leaves out take their defaults. */
function storedMessage(message: NewMessage): MessageRow {
  return {
    id: message.id,
    workspaceId: message.workspaceId,
    conversationId: message.conversationId,
    role: message.role,
    content: message.content,
    toolCalls: message.toolCalls ?? [],
    modelMessages: message.modelMessages ?? null,
    provider: message.provider ?? null,
    model: message.model ?? null,
    inputTokens: message.inputTokens ?? null,
    outputTokens: message.outputTokens ?? null,
    finishReason: message.finishReason ?? null,
    version: message.version ?? null,
    source: message.source ?? null,
    annotationId: message.annotationId ?? null,
    annotationSimilarity: message.annotationSimilarity ?? null,
    latencyMs: message.latencyMs ?? null,
    createdAt: message.createdAt,
  };
}
