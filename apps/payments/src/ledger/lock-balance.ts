import { sql } from "drizzle-orm";
import type { PaymentsTx } from "../db/index.ts";
import type { MerchantScope } from "../merchants/merchant-scope.ts";

/**
 * Serialises balance-changing debits of one merchant, mode and currency until the transaction ends,
 * so two payouts cannot both spend the same money.
 *
 * @example await lockBalance(tx, scope, "IDR"); const available = await availableBalance(tx, scope, "IDR");
 */
export async function lockBalance(tx: PaymentsTx, scope: MerchantScope, currency: string): Promise<void> {
  const key = `balance:${scope.merchantId}:${scope.environment}:${currency}`;
  await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${key}, 0))`);
}
