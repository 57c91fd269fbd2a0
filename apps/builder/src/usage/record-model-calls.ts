import { type Clock, newId } from "@app/core";
import { chargeModelCalls } from "../billing/meter.ts";
import type { BuilderConfig } from "../config.ts";
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
 * Stores the model calls of one piece of work in one insert (a tool loop makes several) and books
 * their tokens against the workspace's credits in the same transaction.
 *
 * @example await recordModelCalls(deps, { workspaceId, source: "agent_chat", agentId }, meter.settle());
 */
export async function recordModelCalls(
  deps: { db: BuilderDb; clock: Clock; config: Pick<BuilderConfig, "billing"> },
  origin: ModelCallOrigin,
  calls: readonly ModelCallRecord[],
): Promise<void> {
  if (calls.length === 0) return;
  await deps.db.transaction(async (tx) => {
    const rows = await tx
      .insert(modelCalls)
      .values(
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
      )
      .returning();
    await chargeModelCalls({ ...deps, db: tx }, origin.workspaceId, rows);
  });
}
