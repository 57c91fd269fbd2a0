import type { Clock } from "@app/core";
import type { BuilderDb } from "../db/index.ts";
import { emitEvent } from "../events/emit-event.ts";
import { appendLedgerEntries } from "./append-ledger-entries.ts";
import { toLedgerJson } from "./billing-json.ts";
import type { LedgerRow } from "./schema.ts";

export interface CreditGrant {
  workspaceId: string;
  credits: number;
  kind: "starter" | "purchase";
  description: string;
  /** Unique per grant (`starter:<workspace>`, `order:<id>:purchase`): a grant applied twice books once. */
  reference: string;
  orderId?: string | null;
  details?: Record<string, unknown>;
}

/**
 * The one place credits are added to a workspace: the starter grant of a new workspace and every
 * paid pack. Call it with the transaction that records why (the new workspace, the paid order), so
 * the credits and their cause commit together. Answers the ledger entry, or undefined when this
 * grant was already booked. A purchase also records the `billing.credits.added` event (the ledger
 * entry) in the same transaction, only when an entry was written; wake `deps.deliveries` after the
 * commit. The starter grant has none: it comes with sign-up, before any endpoint could hear it.
 *
 * @example const entry = await addCredits({ db: tx, clock }, { workspaceId, credits: 50_000, kind: "purchase", description: "pack_50k", reference: purchaseReference(order.id), orderId: order.id });
 */
export async function addCredits(
  { db, clock }: { db: BuilderDb; clock: Clock },
  grant: CreditGrant,
): Promise<LedgerRow | undefined> {
  if (!Number.isSafeInteger(grant.credits) || grant.credits <= 0)
    throw new RangeError(`credits to add must be a positive integer, got ${grant.credits}`);
  const [entry] = await appendLedgerEntries(db, [{ ...grant, createdAt: clock.now() }]);
  if (entry && grant.kind === "purchase") {
    await emitEvent(
      { db, clock },
      { workspaceId: grant.workspaceId, type: "billing.credits.added", data: toLedgerJson(entry) },
    );
  }
  return entry;
}
