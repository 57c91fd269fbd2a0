import { newId } from "@app/core";
import { creditsSpentTotal } from "@app/observability";
import type { BuilderDb } from "../db/index.ts";
import type { LedgerRow } from "./schema.ts";
import { creditLedger, type LedgerKind } from "./schema.ts";

export interface LedgerEntry {
  workspaceId: string;
  kind: LedgerKind;
  credits: number;
  description: string;
  /** Unique: an entry whose reference is already booked is skipped. */
  reference: string;
  orderId?: string | null;
  details?: Record<string, unknown>;
  createdAt: Date;
}

/**
 * Appends entries to the ledger; those whose reference is already booked are skipped. Answers the
 * rows written. Call it with the transaction that records what the entries are for. Counts nothing
 * in /metrics: inside a transaction the rows are not committed yet, and one that rolls back would
 * leave `credits_spent_total` above the ledger; pass the rows to `countCreditsSpent` once committed.
 *
 * @example await appendLedgerEntries(tx, [{ workspaceId, kind: "usage", credits: -12, description: "…", reference: "model_call:mcall_1", createdAt: now }]);
 */
export async function appendLedgerEntries(
  db: BuilderDb,
  entries: readonly LedgerEntry[],
): Promise<LedgerRow[]> {
  if (entries.length === 0) return [];
  return ledgerInsert(db, entries).returning();
}

/**
 * Adds the usage debits among `entries` to `credits_spent_total`. Call it once they are committed
 * (after the transaction of `appendLedgerEntries`, or the `writeTogether` of a `ledgerInsert`).
 */
export function countCreditsSpent(
  entries: readonly { kind: LedgerKind; credits: number; details?: Record<string, unknown> | null }[],
): void {
  for (const entry of entries) {
    if (entry.kind === "usage" && entry.credits < 0) {
      creditsSpentTotal.inc({ meter: String(entry.details?.meter ?? "other") }, -entry.credits);
    }
  }
}

/**
 * The insert of `appendLedgerEntries` without running it, for `writeTogether` with the write that
 * the entries are for. Needs at least one entry. Counts nothing in /metrics: call
 * `countCreditsSpent` once the write committed.
 *
 * @example await writeTogether(db, [db.insert(modelCalls).values(rows), ledgerInsert(db, charges)]);
 */
export function ledgerInsert(db: BuilderDb, entries: readonly LedgerEntry[]) {
  return db
    .insert(creditLedger)
    .values(
      entries.map((entry) => ({
        id: newId("led", entry.createdAt.getTime()),
        workspaceId: entry.workspaceId,
        kind: entry.kind,
        credits: entry.credits,
        description: entry.description,
        reference: entry.reference,
        orderId: entry.orderId ?? null,
        details: entry.details ?? {},
        createdAt: entry.createdAt,
      })),
    )
    .onConflictDoNothing({ target: creditLedger.reference });
}
