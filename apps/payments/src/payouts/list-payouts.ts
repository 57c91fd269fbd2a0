import { newestFirst } from "@app/db";
import { and } from "drizzle-orm";
import type { PaymentsDb } from "../db/index.ts";
import { type MerchantScope, ofMerchant } from "../merchants/merchant-scope.ts";
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
  const newest = newestFirst(payouts.id, { limit: query.limit, cursor: query.startingAfter });
  return db
    .select()
    .from(payouts)
    .where(and(ofMerchant(payouts, scope), newest.olderThanCursor))
    .orderBy(newest.order)
    .limit(newest.limit);
}
