import { unixSeconds } from "@app/core";
import { and, desc, eq, lt } from "drizzle-orm";
import type { PaymentsDb, PaymentsTx } from "../db/index.ts";
import type { MerchantScope } from "../merchants/merchants.ts";
import { toAmount } from "../shared/money.ts";
import type { PaymentRow } from "./schema.ts";
import { type PaymentStatus, payments } from "./schema.ts";

/**
 * The state machine of the spec: every allowed move. Anything else is a 409, and since no state can
 * be reached twice, a payment moves at most once per state.
 */
export const PAYMENT_TRANSITIONS: Record<PaymentStatus, readonly PaymentStatus[]> = {
  pending: ["processing", "failed", "expired"],
  processing: ["succeeded", "failed"],
  succeeded: ["refunded"],
  failed: [],
  expired: [],
  refunded: [],
};

/**
 * The API shape of a payment (also `data.object` of its events).
 *
 * @example c.json(toPaymentJson(row, publicUrl), 201)
 */
export function toPaymentJson(row: PaymentRow, publicUrl: string) {
  return {
    id: row.id,
    object: "payment" as const,
    status: row.status,
    amount: toAmount(row.amount),
    currency: row.currency,
    method: row.method,
    provider: row.provider,
    fee_amount: toAmount(row.feeAmount),
    net_amount: toAmount(row.netAmount),
    amount_refunded: toAmount(row.amountRefunded),
    description: row.description,
    metadata: row.metadata,
    failure_reason: row.failureReason,
    environment: row.environment,
    checkout_url: `${publicUrl}/checkout/${row.id}`,
    return_url: row.returnUrl,
    expires_at: unixSeconds(row.expiresAt),
    created: unixSeconds(row.createdAt),
  };
}

/**
 * One payment of the merchant in this mode, or undefined; `forUpdate` locks it until the transaction ends.
 *
 * @example const payment = await findPayment(db, scope, "pay_…");
 */
export async function findPayment(
  db: PaymentsDb | PaymentsTx,
  scope: MerchantScope,
  id: string,
  options: { forUpdate?: boolean } = {},
): Promise<PaymentRow | undefined> {
  const query = db
    .select()
    .from(payments)
    .where(
      and(
        eq(payments.id, id),
        eq(payments.merchantId, scope.merchantId),
        eq(payments.environment, scope.environment),
      ),
    )
    .limit(1);
  const [row] = options.forUpdate ? await query.for("update") : await query;
  return row;
}

/**
 * Newest first, `limit + 1` rows.
 *
 * @example const rows = await listPayments(db, scope, { limit: 10, status: "succeeded" });
 */
export function listPayments(
  db: PaymentsDb,
  scope: MerchantScope,
  query: { limit: number; startingAfter?: string | undefined; status?: PaymentStatus | undefined },
): Promise<PaymentRow[]> {
  return db
    .select()
    .from(payments)
    .where(
      and(
        eq(payments.merchantId, scope.merchantId),
        eq(payments.environment, scope.environment),
        query.status ? eq(payments.status, query.status) : undefined,
        query.startingAfter ? lt(payments.id, query.startingAfter) : undefined,
      ),
    )
    .orderBy(desc(payments.id))
    .limit(query.limit + 1);
}

/**
 * A payment by id alone, for the public checkout page (its id is the capability, as with hosted pages).
 *
 * @example const payment = await findPaymentById(db, "pay_…");
 */
export async function findPaymentById(db: PaymentsDb, id: string): Promise<PaymentRow | undefined> {
  const [row] = await db.select().from(payments).where(eq(payments.id, id)).limit(1);
  return row;
}
