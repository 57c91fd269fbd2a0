import { and, desc, eq, lt } from "drizzle-orm";
import type { PaymentsDb } from "../db/index.ts";
import type { MerchantScope } from "../merchants/merchants.ts";
import type { RefundRow } from "./schema.ts";
import { refunds } from "./schema.ts";

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
