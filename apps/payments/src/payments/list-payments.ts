import { and, desc, eq, lt } from "drizzle-orm";
import type { PaymentsDb } from "../db/index.ts";
import type { MerchantScope } from "../merchants/merchants.ts";
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
