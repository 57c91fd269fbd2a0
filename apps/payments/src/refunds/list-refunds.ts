import { newestFirst } from "@app/db";
import { and, eq } from "drizzle-orm";
import type { PaymentsDb } from "../db/index.ts";
import { type MerchantScope, ofMerchant } from "../merchants/merchant-scope.ts";
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
  const newest = newestFirst(refunds.id, { limit: query.limit, cursor: query.startingAfter });
  return db
    .select()
    .from(refunds)
    .where(
      and(
        ofMerchant(refunds, scope),
        query.payment ? eq(refunds.paymentId, query.payment) : undefined,
        newest.olderThanCursor,
      ),
    )
    .orderBy(newest.order)
    .limit(newest.limit);
}
