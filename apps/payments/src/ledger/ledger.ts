import { type Clock, newId } from "@app/core";
import { and, eq, sql } from "drizzle-orm";
import type { PaymentsDb, PaymentsTx } from "../db/index.ts";
import type { MerchantScope } from "../merchants/merchants.ts";
import { toAmount } from "../shared/money.ts";
import { type LedgerKind, ledgerEntries } from "./schema.ts";

/**
 * Appends one entry (positive credits, negative debits) in the caller's transaction.
 *
 * @example await appendLedgerEntry(tx, clock, scope, { currency: "IDR", amount: 99300n, kind: "payment", sourceId: "pay_…" });
 */
export async function appendLedgerEntry(
  tx: PaymentsTx,
  clock: Clock,
  scope: MerchantScope,
  entry: { currency: string; amount: bigint; kind: LedgerKind; sourceId: string },
): Promise<void> {
  const now = clock.now();
  await tx.insert(ledgerEntries).values({
    id: newId("le", now.getTime()),
    merchantId: scope.merchantId,
    environment: scope.environment,
    currency: entry.currency,
    amount: entry.amount,
    kind: entry.kind,
    sourceId: entry.sourceId,
    createdAt: now,
  });
}

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
    .where(
      and(
        eq(ledgerEntries.merchantId, scope.merchantId),
        eq(ledgerEntries.environment, scope.environment),
        eq(ledgerEntries.currency, currency),
      ),
    );
  return BigInt(row?.total ?? "0");
}

/**
 * `GET /v1/balance`: the available amount per currency.
 *
 * @example const balance = await getBalance(db, scope); // { object: "balance", available: [{ amount: 993, currency: "IDR" }] }
 */
export async function getBalance(db: PaymentsDb, scope: MerchantScope) {
  const rows = await db
    .select({ currency: ledgerEntries.currency, total: sql<string>`sum(${ledgerEntries.amount})::text` })
    .from(ledgerEntries)
    .where(
      and(eq(ledgerEntries.merchantId, scope.merchantId), eq(ledgerEntries.environment, scope.environment)),
    )
    .groupBy(ledgerEntries.currency)
    .orderBy(ledgerEntries.currency);
  return {
    object: "balance" as const,
    environment: scope.environment,
    available: rows.map((row) => ({ amount: toAmount(BigInt(row.total)), currency: row.currency })),
  };
}
