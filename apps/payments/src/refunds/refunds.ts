import { newId, unixSeconds } from "@app/core";
import { recordEvent } from "@app/webhooks";
import { and, asc, desc, eq, inArray, lt, lte, sql } from "drizzle-orm";
import type { PaymentsDb, PaymentsTx } from "../db/index.ts";
import type { Deps } from "../deps.ts";
import { appendLedgerEntry } from "../ledger/ledger.ts";
import type { MerchantScope } from "../merchants/merchants.ts";
import type { Environment } from "../merchants/schema.ts";
import { PaymentErrors } from "../payments/errors.ts";
import { findPayment } from "../payments/payments.ts";
import { payments as paymentsTable } from "../payments/schema.ts";
import { applyPaymentTransition } from "../payments/transition-payment.ts";
import { checkMoney, toAmount } from "../shared/money.ts";
import { RefundErrors } from "./errors.ts";
import type { RefundRow } from "./schema.ts";
import { type RefundStatus, refunds } from "./schema.ts";

/** The simulated provider settles a refund this long after it was requested. */
export const REFUND_SETTLEMENT_MS = 5_000;

export function toRefundJson(row: RefundRow) {
  return {
    id: row.id,
    object: "refund" as const,
    payment: row.paymentId,
    amount: toAmount(row.amount),
    currency: row.currency,
    status: row.status,
    failure_reason: row.failureReason,
    environment: row.environment,
    created: unixSeconds(row.createdAt),
  };
}

/** Minor units still refundable: the amount minus refunds that succeeded or may still succeed. */
async function refundableAmount(tx: PaymentsTx, payment: { id: string; amount: bigint }): Promise<bigint> {
  const [row] = await tx
    .select({ total: sql<string>`coalesce(sum(${refunds.amount}), 0)::text` })
    .from(refunds)
    .where(and(eq(refunds.paymentId, payment.id), inArray(refunds.status, ["pending", "succeeded"])));
  return payment.amount - BigInt(row?.total ?? "0");
}

/**
 * Requests a refund of a succeeded payment (default: all that remains). It is `pending` until the
 * simulated provider settles it (or a test helper does); 422 when more than what remains is asked.
 *
 * @example const refund = await createRefund(deps, scope, { payment: "pay_…", amount: 5000n });
 */
export async function createRefund(
  deps: Pick<Deps, "db" | "clock">,
  scope: MerchantScope,
  input: { payment: string; amount?: bigint | undefined },
): Promise<RefundRow> {
  const now = deps.clock.now();
  return deps.db.transaction(async (tx) => {
    const payment = await findPayment(tx, scope, input.payment, { forUpdate: true });
    if (!payment) throw PaymentErrors.PAYMENT_NOT_FOUND({ param: "payment" });
    if (payment.status !== "succeeded") {
      throw RefundErrors.PAYMENT_NOT_REFUNDABLE({
        message: `A ${payment.status} payment cannot be refunded.`,
      });
    }
    // The payment's currency, accepted when it was made: only a whole amount of one without minor units.
    checkMoney([payment.currency], payment.currency, input.amount);
    const remaining = await refundableAmount(tx, payment);
    const amount = input.amount ?? remaining;
    if (amount <= 0n || amount > remaining) {
      throw RefundErrors.AMOUNT_EXCEEDS_REFUNDABLE({
        message: `At most ${toAmount(remaining)} ${payment.currency} remains refundable.`,
        param: "amount",
      });
    }
    const [row] = await tx
      .insert(refunds)
      .values({
        id: newId("re", now.getTime()),
        merchantId: scope.merchantId,
        environment: scope.environment,
        paymentId: payment.id,
        amount,
        currency: payment.currency,
        status: "pending",
        settlesAt: new Date(now.getTime() + REFUND_SETTLEMENT_MS),
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    if (!row) throw new Error("insert returned no row");
    return row;
  });
}

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
      .where(
        and(
          eq(refunds.id, id),
          eq(refunds.merchantId, scope.merchantId),
          eq(refunds.environment, scope.environment),
        ),
      )
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

/**
 * One refund of the merchant, or undefined.
 *
 * @example const refund = await findRefund(db, scope, "re_…");
 */
export async function findRefund(
  db: PaymentsDb,
  scope: MerchantScope,
  id: string,
): Promise<RefundRow | undefined> {
  const [row] = await db
    .select()
    .from(refunds)
    .where(
      and(
        eq(refunds.id, id),
        eq(refunds.merchantId, scope.merchantId),
        eq(refunds.environment, scope.environment),
      ),
    )
    .limit(1);
  return row;
}

/**
 * Newest first, `limit + 1` rows, optionally of one payment.
 *
 * @example await listRefunds(db, scope, { limit: 10, payment: "pay_…" });
 */
export function listRefunds(
  db: PaymentsDb,
  scope: MerchantScope,
  query: { limit: number; startingAfter?: string | undefined; payment?: string | undefined },
): Promise<RefundRow[]> {
  return db
    .select()
    .from(refunds)
    .where(
      and(
        eq(refunds.merchantId, scope.merchantId),
        eq(refunds.environment, scope.environment),
        query.payment ? eq(refunds.paymentId, query.payment) : undefined,
        query.startingAfter ? lt(refunds.id, query.startingAfter) : undefined,
      ),
    )
    .orderBy(desc(refunds.id))
    .limit(query.limit + 1);
}

/**
 * The simulated provider: settles pending refunds whose settlement time has come, as succeeded.
 *
 * @example await settleDueRefunds(deps);
 */
export async function settleDueRefunds(
  deps: Pick<Deps, "db" | "clock" | "config" | "deliveries" | "logger">,
): Promise<number> {
  const due = await deps.db
    .select({ id: refunds.id, merchantId: refunds.merchantId, environment: refunds.environment })
    .from(refunds)
    .where(and(eq(refunds.status, "pending"), lte(refunds.settlesAt, deps.clock.now())))
    .orderBy(asc(refunds.settlesAt))
    .limit(200);
  let settled = 0;
  for (const refund of due) {
    try {
      await settleRefund(
        deps,
        { merchantId: refund.merchantId, environment: refund.environment as Environment },
        refund.id,
        "succeeded",
      );
      settled += 1;
    } catch (error) {
      deps.logger.debug({ err: error, refund: refund.id }, "refund not settled");
    }
  }
  return settled;
}
