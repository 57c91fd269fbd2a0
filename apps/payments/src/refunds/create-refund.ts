import { newId } from "@app/core";
import { and, eq, inArray, sql } from "drizzle-orm";
import type { PaymentsTx } from "../db/index.ts";
import type { Deps } from "../deps.ts";
import { recoveryPoint } from "../idempotency/idempotency.ts";
import type { IdempotencyClaim } from "../idempotency/schema.ts";
import type { MerchantScope } from "../merchants/merchant-scope.ts";
import { PaymentErrors } from "../payments/errors.ts";
import { findPayment } from "../payments/find-payment.ts";
import { checkMoney, toAmount } from "../shared/money.ts";
import { RefundErrors } from "./errors.ts";
import type { RefundRow } from "./schema.ts";
import { refunds } from "./schema.ts";

/** The simulated provider settles a refund this long after it was requested. */
export const REFUND_SETTLEMENT_MS = 5_000;

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
  idempotency?: IdempotencyClaim,
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
    if (idempotency) await recoveryPoint(tx, deps.clock, idempotency, row.id);
    return row;
  });
}
