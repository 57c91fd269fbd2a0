import { newestFirst } from "@app/db";
import { and, eq } from "drizzle-orm";
import type { PaymentsDb } from "../db/index.ts";
import { type MerchantScope, ofMerchant } from "../merchants/merchant-scope.ts";
import type { PaymentRow } from "./schema.ts";
import { type PaymentStatus, payments } from "./schema.ts";

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
  const newest = newestFirst(payments.id, { limit: query.limit, cursor: query.startingAfter });
  return db
    .select()
    .from(payments)
    .where(
      and(
        ofMerchant(payments, scope),
        query.status ? eq(payments.status, query.status) : undefined,
        newest.olderThanCursor,
      ),
    )
    .orderBy(newest.order)
    .limit(newest.limit);
}
