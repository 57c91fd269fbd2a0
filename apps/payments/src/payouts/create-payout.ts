import { newId } from "@app/core";
import type { Deps } from "../deps.ts";
import { recoveryPoint } from "../idempotency/idempotency.ts";
import type { IdempotencyClaim } from "../idempotency/schema.ts";
import { appendLedgerEntry } from "../ledger/append-ledger-entry.ts";
import { availableBalance } from "../ledger/available-balance.ts";
import { lockBalance } from "../ledger/lock-balance.ts";
import type { MerchantScope } from "../merchants/merchant-scope.ts";
import { toAmount } from "../shared/money.ts";
import { PayoutErrors } from "./errors.ts";
import type { PayoutRow } from "./schema.ts";
import { type PayoutDestination, payouts } from "./schema.ts";

/** The simulated bank settles a payout this long after it was requested. */
export const PAYOUT_SETTLEMENT_MS = 30_000;

/**
 * Requests a payout: debits the ledger at once (422 above the available balance, checked under a
 * per-balance lock so concurrent payouts cannot overspend); it is `pending` until settled.
 *
 * @example await createPayout(deps, scope, { amount: 50000n, currency: "IDR", destination });
 */
export async function createPayout(
  deps: Pick<Deps, "db" | "clock">,
  scope: MerchantScope,
  input: { amount: bigint; currency: string; destination: PayoutDestination },
  idempotency?: IdempotencyClaim,
): Promise<PayoutRow> {
  const now = deps.clock.now();
  return deps.db.transaction(async (tx) => {
    await lockBalance(tx, scope, input.currency);
    const available = await availableBalance(tx, scope, input.currency);
    if (input.amount > available) {
      throw PayoutErrors.INSUFFICIENT_BALANCE({
        message: `The available balance is ${toAmount(available)} ${input.currency}.`,
        param: "amount",
      });
    }
    const [row] = await tx
      .insert(payouts)
      .values({
        id: newId("po", now.getTime()),
        merchantId: scope.merchantId,
        environment: scope.environment,
        amount: input.amount,
        currency: input.currency,
        status: "pending",
        destination: input.destination,
        settlesAt: new Date(now.getTime() + PAYOUT_SETTLEMENT_MS),
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    if (!row) throw new Error("insert returned no row");
    if (idempotency) await recoveryPoint(tx, deps.clock, idempotency, row.id);
    await appendLedgerEntry(tx, deps.clock, scope, {
      currency: input.currency,
      amount: -input.amount,
      kind: "payout",
      sourceId: row.id,
    });
    return row;
  });
}
