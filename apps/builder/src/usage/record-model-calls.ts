import { type Clock, newId } from "@app/core";
import { writeTogether } from "@app/db";
import { modelTokensTotal } from "@app/observability";
import type { SQLWrapper } from "drizzle-orm";
import { countCreditsSpent, ledgerInsert } from "../billing/append-ledger-entries.ts";
import { modelCallCharges } from "../billing/meter.ts";
import type { BuilderConfig } from "../config.ts";
import type { BuilderDb } from "../db/index.ts";
import type { ModelCallRecord } from "../providers/metered-model.ts";
import { modelCalls } from "./schema.ts";

/** What a batch of model calls was made for. */
export interface ModelCallOrigin {
  workspaceId: string;
  source: "agent_chat" | "workflow_llm" | "evaluation_judge";
  agentId?: string | null;
  conversationId?: string | null;
}

type RecordDeps = { db: BuilderDb; clock: Clock; config: Pick<BuilderConfig, "billing"> };

/**
 * Stores the model calls of one piece of work (a tool loop makes several) and books their tokens
 * against the workspace's credits, in one statement.
 *
 * @example await recordModelCalls(deps, { workspaceId, source: "agent_chat", agentId }, meter.settle());
 */
export async function recordModelCalls(
  deps: RecordDeps,
  origin: ModelCallOrigin,
  calls: readonly ModelCallRecord[],
): Promise<void> {
  const batch = modelCallWrites(deps, origin, calls);
  await writeTogether(deps.db, batch.writes);
  batch.countCommitted();
}

/** The writes of a batch of model calls, and the metrics they add once those writes are committed. */
export interface ModelCallWrites {
  writes: SQLWrapper[];
  /** What the calls cost: the credits their charges book and their tokens. */
  spent: { credits: number; inputTokens: number; outputTokens: number };
  /**
   * Adds the calls' tokens (`model_tokens_total`) and charges (`credits_spent_total`) to /metrics.
   * Call it after the writes committed: a save that fails or rolls back must count nothing, or the
   * metrics drift from the usage and ledger tables they summarise.
   */
  countCommitted(): void;
}

/**
 * The writes of `recordModelCalls` without running them, for `writeTogether` with the work's own
 * writes (a chat turn stores its messages in the same statement).
 *
 * @example
 * const batch = modelCallWrites(deps, origin, meter.settle());
 * await writeTogether(db, [...turnWrites, ...batch.writes]);
 * batch.countCommitted();
 */
export function modelCallWrites(
  deps: RecordDeps,
  origin: ModelCallOrigin,
  calls: readonly ModelCallRecord[],
): ModelCallWrites {
  if (calls.length === 0)
    return { writes: [], spent: { credits: 0, inputTokens: 0, outputTokens: 0 }, countCommitted: () => {} };
  const rows = calls.map((call) => ({
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
  }));
  const charges = modelCallCharges(deps.config.billing.prices, origin.workspaceId, rows);
  return {
    writes: [
      deps.db.insert(modelCalls).values(rows),
      ...(charges.length > 0 ? [ledgerInsert(deps.db, charges)] : []),
    ],
    spent: {
      credits: charges.reduce((sum, charge) => sum - charge.credits, 0),
      inputTokens: rows.reduce((sum, row) => sum + row.inputTokens, 0),
      outputTokens: rows.reduce((sum, row) => sum + row.outputTokens, 0),
    },
    countCommitted: () => {
      for (const row of rows) {
        modelTokensTotal.inc({ provider: row.provider, direction: "input" }, row.inputTokens);
        modelTokensTotal.inc({ provider: row.provider, direction: "output" }, row.outputTokens);
      }
      countCreditsSpent(charges);
    },
  };
}
