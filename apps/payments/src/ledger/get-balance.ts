import { sql } from "drizzle-orm";
import type { PaymentsDb } from "../db/index.ts";
import { type MerchantScope, ofMerchant } from "../merchants/merchant-scope.ts";
import { toAmount } from "../shared/money.ts";
import { ledgerEntries } from "./schema.ts";

/**
 * `GET /v1/balance`: the available amount per currency.
 *
 * @example const balance = await getBalance(db, scope); // { object: "balance", available: [{ amount: 993, currency: "IDR" }] }
 */
export async function getBalance(db: PaymentsDb, scope: MerchantScope) {
  const rows = await db
    .select({ currency: ledgerEntries.currency, total: sql<string>`sum(${ledgerEntries.amount})::text` })
    .from(ledgerEntries)
    .where(ofMerchant(ledgerEntries, scope))
    .groupBy(ledgerEntries.currency)
    .orderBy(ledgerEntries.currency);
  return {
    object: "balance" as const,
    environment: scope.environment,
    available: rows.map((row) => ({ amount: toAmount(BigInt(row.total)), currency: row.currency })),
  };
}
