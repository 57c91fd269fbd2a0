import { and, eq, sql } from "drizzle-orm";
import type { PaymentsDb, PaymentsTx } from "../db/index.ts";
import { type MerchantScope, ofMerchant } from "../merchants/merchant-scope.ts";
import { ledgerEntries } from "./schema.ts";

/**
 * The available balance in one currency, in minor units.
 *
 * @example const minor = await availableBalance(db, scope, "IDR");
 */
export async function availableBalance(
  db: PaymentsDb | PaymentsTx,
  scope: MerchantScope,
  currency: string,
): Promise<bigint> {
  const [row] = await db
    .select({ total: sql<string>`coalesce(sum(${ledgerEntries.amount}), 0)::text` })
    .from(ledgerEntries)
    .where(and(ofMerchant(ledgerEntries, scope), eq(ledgerEntries.currency, currency)));
  return BigInt(row?.total ?? "0");
}
