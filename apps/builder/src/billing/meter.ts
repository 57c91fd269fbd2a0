// The meter: what features call to gate work on the balance and to book what they used. Every
// charge is a negative ledger entry whose reference names the usage record, so it books once.
import { type Clock, newId } from "@app/core";
import type { BuilderConfig } from "../config.ts";
import type { BuilderDb } from "../db/index.ts";
import { appendLedgerEntries, countCreditsSpent, type LedgerEntry } from "./append-ledger-entries.ts";
import { creditBalance } from "./credit-balance.ts";
import { BillingErrors } from "./errors.ts";
import { priceOfGeneration, priceOfModelCall, priceOfSandboxRun } from "./price-table.ts";
import type { LedgerRow } from "./schema.ts";

export interface MeterDeps {
  db: BuilderDb;
  clock: Clock;
  config: Pick<BuilderConfig, "billing">;
}

/**
 * With enforcement on (`BILLING_ENFORCE=1`), refuses work the balance cannot pay for with a 402
 * before it starts: work with a price known up front (a generation) needs that price; work metered
 * as it runs (tokens, sandbox seconds) needs a positive balance. It is a gate, not a reservation: a
 * run that started in credit may end below zero, and then the next one is refused.
 *
 * @example await requireCredits(deps, workspaceId, { work: "This generation", cost: 800 });
 */
export async function requireCredits(
  deps: Pick<MeterDeps, "db" | "config">,
  workspaceId: string,
  need: { work: string; cost?: number } = { work: "This work" },
): Promise<void> {
  if (!deps.config.billing.enforce) return;
  const cost = Math.max(1, need.cost ?? 1);
  const balance = await creditBalance(deps.db, workspaceId);
  if (balance >= cost) return;
  const needs = need.cost === undefined ? "at least 1 credit" : `${cost} credits`;
  throw BillingErrors.INSUFFICIENT_CREDITS({
    message: `Out of credits: ${need.work} needs ${needs} and this workspace has ${balance}. Buy a credit pack (POST /api/billing/checkout) to continue.`,
  });
}

/** A recorded model call, as the usage feature stores it. */
export interface MeteredModelCall {
  id: string;
  provider: string;
  model: string;
  inputTokens: number;
  outputTokens: number;
  createdAt: Date;
}

/**
 * The ledger entries that book the tokens of recorded model calls, one per call (calls that cost
 * nothing book nothing). Write them with the calls (`recordModelCalls` does), so they commit together.
 *
 * @example const entries = modelCallCharges(config.billing.prices, workspaceId, rows);
 */
export function modelCallCharges(
  prices: BuilderConfig["billing"]["prices"],
  workspaceId: string,
  calls: readonly MeteredModelCall[],
): LedgerEntry[] {
  const entries: LedgerEntry[] = [];
  for (const call of calls) {
    const credits = priceOfModelCall(prices, call);
    if (credits <= 0) continue;
    entries.push({
      workspaceId,
      kind: "usage",
      credits: -credits,
      description: `${call.provider}/${call.model}: ${call.inputTokens} input + ${call.outputTokens} output tokens`,
      reference: `model_call:${call.id}`,
      details: {
        meter: "llm_tokens",
        model_call_id: call.id,
        provider: call.provider,
        model: call.model,
        input_tokens: call.inputTokens,
        output_tokens: call.outputTokens,
      },
      createdAt: call.createdAt,
    });
  }
  return entries;
}

/**
 * Books a generation once Replicate has accepted it (its compute is billed whatever the outcome).
 * Call it in the transaction that records the generation, and pass what it answers to
 * `countCreditsSpent` once that transaction committed.
 *
 * @example const charged = await db.transaction((tx) => chargeGeneration({ db: tx, clock, config }, row)); countCreditsSpent(charged);
 */
export async function chargeGeneration(
  deps: MeterDeps,
  generation: { id: string; workspaceId: string; kind: "image" | "video"; model: string },
): Promise<LedgerRow[]> {
  const credits = priceOfGeneration(deps.config.billing.prices, generation);
  if (credits <= 0) return [];
  return appendLedgerEntries(deps.db, [
    {
      workspaceId: generation.workspaceId,
      kind: "usage",
      credits: -credits,
      description: `${generation.kind} generation with ${generation.model}`,
      reference: `generation:${generation.id}`,
      details: {
        meter: "generation",
        generation_id: generation.id,
        kind: generation.kind,
        model: generation.model,
      },
      createdAt: deps.clock.now(),
    },
  ]);
}

export type SandboxSource = "sandbox_run" | "workflow_code" | "agent_tool";

/**
 * Books the wall-clock time of one sandbox run (failed programs used the time too).
 *
 * @example await chargeSandboxRun(deps, { workspaceId, durationMs: result.durationMs, language: "python", source: "sandbox_run" });
 */
export async function chargeSandboxRun(
  deps: MeterDeps,
  run: { workspaceId: string; durationMs: number; language: string; source: SandboxSource },
): Promise<void> {
  const credits = priceOfSandboxRun(deps.config.billing.prices, run.durationMs);
  if (credits <= 0) return;
  const now = deps.clock.now();
  const id = newId("sbx", now.getTime());
  const charged = await appendLedgerEntries(deps.db, [
    {
      workspaceId: run.workspaceId,
      kind: "usage",
      credits: -credits,
      description: `${run.language} sandbox run, ${Math.round(run.durationMs)} ms`,
      reference: `sandbox_run:${id}`,
      details: {
        meter: "sandbox",
        run_id: id,
        source: run.source,
        language: run.language,
        duration_ms: run.durationMs,
      },
      createdAt: now,
    },
  ]);
  // One insert outside any transaction: it has committed here.
  countCreditsSpent(charged);
}
