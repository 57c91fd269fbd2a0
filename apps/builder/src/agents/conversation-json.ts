import type { MessageWithFeedback } from "./message-feedback.ts";
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

/** A passage an answer drew on (the API's Citation). */
export interface CitationJson {
  knowledge_base_id: string;
  document_id: string;
  document_name: string;
  chunk_id: string;
  position: number;
  text: string;
}

/**
 * The passages the turn's knowledge_search calls answered, each chunk once, in the order found.
 * Read from the stored tool outputs, so stored turns cite as the streamed one did; outputs stored
 * before results carried `knowledge_base_id` and `position` cannot be opened and are left out.
 *
 * @example const citations = citationsOf(message.tool_calls);
 */
export function citationsOf(toolCalls: readonly ToolCallSummary[]): CitationJson[] {
  const seen = new Set<string>();
  const citations: CitationJson[] = [];
  for (const call of toolCalls) {
    if (call.name !== "knowledge_search" || call.is_error) continue;
    const results = (call.output as { results?: unknown } | null)?.results;
    if (!Array.isArray(results)) continue;
    for (const result of results) {
      if (!isCitation(result) || seen.has(result.chunk_id)) continue;
      seen.add(result.chunk_id);
      citations.push({
        knowledge_base_id: result.knowledge_base_id,
        document_id: result.document_id,
        document_name: result.document_name,
        chunk_id: result.chunk_id,
        position: result.position,
        text: result.text,
      });
    }
  }
  return citations;
}

function isCitation(value: unknown): value is CitationJson {
  if (typeof value !== "object" || value === null) return false;
  const result = value as Record<string, unknown>;
  return (
    typeof result.knowledge_base_id === "string" &&
    typeof result.document_id === "string" &&
    typeof result.document_name === "string" &&
    typeof result.chunk_id === "string" &&
    Number.isInteger(result.position) &&
    typeof result.text === "string"
  );
}

export function toConversationJson(row: ConversationRow) {
  return {
    id: row.id,
    agent_id: row.agentId,
    title: row.title,
    version: row.version,
    app_id: row.appId,
    end_user_id: row.endUserId,
    source: row.source,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

export function toMessageJson(row: MessageRow) {
  const toolCalls = row.toolCalls as ToolCallSummary[];
  return {
    id: row.id,
    conversation_id: row.conversationId,
    role: row.role as "user" | "assistant",
    content: row.content,
    tool_calls: toolCalls,
    citations: citationsOf(toolCalls),
    provider: row.provider,
    model: row.model,
    finish_reason: row.finishReason,
    version: row.version,
    source: row.source,
    annotation:
      row.annotationId === null ? null : { id: row.annotationId, similarity: row.annotationSimilarity ?? 0 },
    latency_ms: row.latencyMs,
    usage:
      row.inputTokens === null || row.outputTokens === null
        ? null
        : { input_tokens: row.inputTokens, output_tokens: row.outputTokens },
    created_at: row.createdAt.toISOString(),
  };
}

/**
 * A message with its ratings (the end user's and the team's), as the team's views show it.
 *
 * @example const page = toPage(rows, limit, toRatedMessageJson);
 */
export function toRatedMessageJson(row: MessageWithFeedback) {
  return {
    ...toMessageJson(row),
    feedback: row.feedback.map((rating) => ({
      source: rating.source,
      rating: rating.rating,
      comment: rating.comment,
      updated_at: rating.updatedAt.toISOString(),
    })),
  };
}
