import { and, eq } from "drizzle-orm";
import type { PaymentsDb } from "../db/index.ts";
import { type MerchantScope, ofMerchant } from "../merchants/merchant-scope.ts";
import type { RefundRow } from "./schema.ts";
import { refunds } from "./schema.ts";

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
    .where(and(eq(refunds.id, id), ofMerchant(refunds, scope)))
    .limit(1);
  return row;
}
