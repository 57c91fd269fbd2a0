import type { AnnotationRow } from "./schema.ts";

/**
 * An annotation as the API answers it (never its embedding).
 *
 * @example return c.json(toAnnotationJson(row), 201);
 */
export function toAnnotationJson(row: AnnotationRow) {
  return {
    id: row.id,
    agent_id: row.agentId,
    question: row.question,
    answer: row.answer,
    message_id: row.messageId,
    hit_count: row.hitCount,
    last_hit_at: row.lastHitAt?.toISOString() ?? null,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}
