import { newestFirst } from "@app/db";
import { and, eq } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import type { ModelCallRow } from "./schema.ts";
import { modelCalls } from "./schema.ts";

export function toModelCallJson(row: ModelCallRow) {
  return {
    id: row.id,
    source: row.source,
    agent_id: row.agentId,
    conversation_id: row.conversationId,
    provider: row.provider,
    model: row.model,
    input_tokens: row.inputTokens,
    output_tokens: row.outputTokens,
    latency_ms: row.latencyMs,
    status: row.status,
    created_at: row.createdAt.toISOString(),
  };
}

/**
 * The workspace's model calls, newest first; fetches `limit + 1` rows for the list envelope.
 *
 * @example const rows = await listModelCalls(db, workspaceId, { limit: 20, agentId });
 */
export function listModelCalls(
  db: BuilderDb,
  workspaceId: string,
  page: { limit: number; cursor?: string | undefined; agentId?: string | undefined },
) {
  const newest = newestFirst(modelCalls.id, page);
  return db
    .select()
    .from(modelCalls)
    .where(
      and(
        eq(modelCalls.workspaceId, workspaceId),
        newest.olderThanCursor,
        page.agentId ? eq(modelCalls.agentId, page.agentId) : undefined,
      ),
    )
    .orderBy(newest.order)
    .limit(newest.limit);
}
