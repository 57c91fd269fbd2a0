import { recordEvent } from "@app/webhooks";
import { and, eq } from "drizzle-orm";
import type { Deps } from "../deps.ts";
import { appendLedgerEntry } from "../ledger/append-ledger-entry.ts";
import { type MerchantScope, ofMerchant } from "../merchants/merchant-scope.ts";
import { PayoutErrors } from "./errors.ts";
import { toPayoutJson } from "./payout-json.ts";
import type { PayoutRow } from "./schema.ts";
import { type PayoutStatus, payouts } from "./schema.ts";

/**
 * Settles a pending payout: `payout.succeeded`, or `payout.failed` with the debit reversed by a new
 * ledger entry (never by editing the old one), in one transaction.
 *
 * @example await settlePayout(deps, scope, "po_…", "failed");
 */
export async function settlePayout(
  deps: Pick<Deps, "db" | "clock" | "deliveries">,
  scope: MerchantScope,
  id: string,
  outcome: Exclude<PayoutStatus, "pending">,
): Promise<PayoutRow> {
  const row = await deps.db.transaction(async (tx) => {
    const [payout] = await tx
      .select()
      .from(payouts)
      .where(and(eq(payouts.id, id), ofMerchant(payouts, scope)))
      .for("update");
    if (!payout) throw PayoutErrors.PAYOUT_NOT_FOUND();
    if (payout.status !== "pending") {
      throw PayoutErrors.INVALID_PAYOUT_TRANSITION({
        message: `A ${payout.status} payout cannot become ${outcome}.`,
      });
    }
    const [updated] = await tx
      .update(payouts)
      .set({
        status: outcome,
        updatedAt: deps.clock.now(),
        ...(outcome === "failed" ? { failureReason: "bank_rejected" } : {}),
      })
      .where(eq(payouts.id, payout.id))
      .returning();
    if (!updated) throw new Error("update returned no row");
    if (outcome === "failed") {
      await appendLedgerEntry(tx, deps.clock, scope, {
        currency: payout.currency,
        amount: payout.amount,
        kind: "payout_reversal",
        sourceId: payout.id,
      });
    }
    await recordEvent(tx, deps.clock, {
      ownerId: scope.merchantId,
      environment: scope.environment,
      type: `payout.${outcome}`,
      object: toPayoutJson(updated),
    });
    return updated;
  });
  deps.deliveries.wake();
  return row;
}
