import { and, eq } from "drizzle-orm";
import type { PaymentsDb } from "../db/index.ts";
import { type MerchantScope, ofMerchant } from "../merchants/merchant-scope.ts";
import type { PayoutRow } from "./schema.ts";
import { payouts } from "./schema.ts";

/**
 * One payout of the merchant, or undefined.
 *
 * @example await findPayout(db, scope, "po_…");
 */
export async function findPayout(
  db: PaymentsDb,
  scope: MerchantScope,
  id: string,
): Promise<PayoutRow | undefined> {
  const [row] = await db
    .select()
    .from(payouts)
    .where(and(eq(payouts.id, id), ofMerchant(payouts, scope)))
    .limit(1);
  return row;
}
