import type { ConversationRow, MessageRow } from "./schema.ts";

/** A tool call of an assistant turn as the API shows it. */
export interface ToolCallSummary {
  id: string;
  name: string;
  input: unknown;
  output: unknown;
  is_error: boolean;
  /** From the call to its result; absent on turns stored before it was recorded. */
  duration_ms?: number | null;
}

export function toConversationJson(row: ConversationRow) {
  return {
    id: row.id,
    agent_id: row.agentId,
    title: row.title,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

export function toMessageJson(row: MessageRow) {
  return {
    id: row.id,
    conversation_id: row.conversationId,
    role: row.role as "user" | "assistant",
    content: row.content,
    tool_calls: row.toolCalls as ToolCallSummary[],
    provider: row.provider,
    model: row.model,
    finish_reason: row.finishReason,
    usage:
      row.inputTokens === null || row.outputTokens === null
        ? null
        : { input_tokens: row.inputTokens, output_tokens: row.outputTokens },
    created_at: row.createdAt.toISOString(),
  };
}
