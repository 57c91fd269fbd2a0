import { and, desc, eq, lt } from "drizzle-orm";
import type { PaymentsDb } from "../db/index.ts";
import type { MerchantScope } from "../merchants/merchants.ts";
import type { PayoutRow } from "./schema.ts";
import { payouts } from "./schema.ts";

/**
 * Newest first, `limit + 1` rows.
 *
 * @example await listPayouts(db, scope, { limit: 10 });
 */
export function listPayouts(
  db: PaymentsDb,
  scope: MerchantScope,
  query: { limit: number; startingAfter?: string | undefined },
): Promise<PayoutRow[]> {
  return db
    .select()
    .from(payouts)
    .where(
      and(
        eq(payouts.merchantId, scope.merchantId),
        eq(payouts.environment, scope.environment),
        query.startingAfter ? lt(payouts.id, query.startingAfter) : undefined,
      ),
    )
    .orderBy(desc(payouts.id))
    .limit(query.limit + 1);
}
