import { and, eq } from "drizzle-orm";
import type { PaymentsDb, PaymentsTx } from "../db/index.ts";
import { type MerchantScope, ofMerchant } from "../merchants/merchant-scope.ts";
import type { PaymentRow } from "./schema.ts";
import { payments } from "./schema.ts";

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
    .where(and(eq(payments.id, id), ofMerchant(payments, scope)))
    .limit(1);
  const [row] = options.forUpdate ? await query.for("update") : await query;
  return row;
}
