import { newId } from "@app/core";
import type { BuilderDb } from "../db/index.ts";
import type { ModelCallRecord } from "../providers/metered-model.ts";
import { modelCalls } from "./schema.ts";

/** What a batch of model calls was made for. */
export interface ModelCallOrigin {
  workspaceId: string;
  source: "agent_chat" | "workflow_llm";
  agentId?: string | null;
  conversationId?: string | null;
}

/**
 * Stores the model calls of one piece of work in one insert (a tool loop makes several).
 *
 * @example await recordModelCalls(db, { workspaceId, source: "agent_chat", agentId }, meter.settle());
 */
export async function recordModelCalls(
  db: BuilderDb,
  origin: ModelCallOrigin,
  calls: readonly ModelCallRecord[],
): Promise<void> {
  if (calls.length === 0) return;
  await db.insert(modelCalls).values(
    calls.map((call) => ({
      id: newId("mcall", call.startedAt.getTime()),
      workspaceId: origin.workspaceId,
      source: origin.source,
      agentId: origin.agentId ?? null,
      conversationId: origin.conversationId ?? null,
      provider: call.provider,
      model: call.model,
      inputTokens: call.inputTokens,
      outputTokens: call.outputTokens,
      latencyMs: call.latencyMs,
      status: call.status,
      createdAt: call.startedAt,
    })),
  );
}
