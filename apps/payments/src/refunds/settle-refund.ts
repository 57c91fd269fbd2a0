import { recordEvent } from "@app/webhooks";
import { and, eq } from "drizzle-orm";
import type { Deps } from "../deps.ts";
import { appendLedgerEntry } from "../ledger/append-ledger-entry.ts";
import { type MerchantScope, ofMerchant } from "../merchants/merchant-scope.ts";
import { findPayment } from "../payments/find-payment.ts";
import { payments as paymentsTable } from "../payments/schema.ts";
import { applyPaymentTransition } from "../payments/transition-payment.ts";
import { RefundErrors } from "./errors.ts";
import { toRefundJson } from "./refund-json.ts";
import type { RefundRow } from "./schema.ts";
import { type RefundStatus, refunds } from "./schema.ts";

/**
 * Settles a pending refund: `succeeded` debits the ledger, emits `refund.succeeded` and, when refunds
 * reach the full amount, moves the payment to `refunded` (`payment.refunded`); `failed` emits
 * `refund.failed` and frees the amount again. All in one transaction.
 *
 * @example await settleRefund(deps, scope, "re_…", "succeeded");
 */
export async function settleRefund(
  deps: Pick<Deps, "db" | "clock" | "config" | "deliveries">,
  scope: MerchantScope,
  id: string,
  outcome: Exclude<RefundStatus, "pending">,
): Promise<RefundRow> {
  const row = await deps.db.transaction(async (tx) => {
    const [refund] = await tx
      .select()
      .from(refunds)
      .where(and(eq(refunds.id, id), ofMerchant(refunds, scope)))
      .for("update");
    if (!refund) throw RefundErrors.REFUND_NOT_FOUND();
    if (refund.status !== "pending") {
      throw RefundErrors.INVALID_REFUND_TRANSITION({
        message: `A ${refund.status} refund cannot become ${outcome}.`,
      });
    }
    const payment = await findPayment(tx, scope, refund.paymentId, { forUpdate: true });
    if (!payment) throw new Error(`refund ${refund.id} has no payment`);
    const now = deps.clock.now();
    const [updated] = await tx
      .update(refunds)
      .set({
        status: outcome,
        updatedAt: now,
        ...(outcome === "failed" ? { failureReason: "provider_declined" } : {}),
      })
      .where(eq(refunds.id, refund.id))
      .returning();
    if (!updated) throw new Error("update returned no row");
    if (outcome === "succeeded") {
      await appendLedgerEntry(tx, deps.clock, scope, {
        currency: refund.currency,
        amount: -refund.amount,
        kind: "refund",
        sourceId: refund.id,
      });
    }
    await recordEvent(tx, deps.clock, {
      ownerId: scope.merchantId,
      environment: scope.environment,
      type: `refund.${outcome}`,
      object: toRefundJson(updated),
    });
    if (outcome === "succeeded") {
      const refunded = payment.amountRefunded + refund.amount;
      const [withRefund] = await tx
        .update(paymentsTable)
        .set({ amountRefunded: refunded, updatedAt: now })
        .where(eq(paymentsTable.id, payment.id))
        .returning();
      if (withRefund && refunded === payment.amount) {
        await applyPaymentTransition(tx, deps, scope, withRefund, "refunded");
      }
    }
    return updated;
  });
  deps.deliveries.wake();
  return row;
}
