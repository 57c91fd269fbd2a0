import { type Clock, newId } from "@app/core";
import type { PaymentsTx } from "../db/index.ts";
import type { MerchantScope } from "../merchants/merchant-scope.ts";
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
