import { newId, unixSeconds } from "@app/core";
import { recordEvent } from "@app/webhooks";
import { and, asc, desc, eq, lt, lte } from "drizzle-orm";
import type { PaymentsDb } from "../db/index.ts";
import type { Deps } from "../deps.ts";
import { appendLedgerEntry, availableBalance, lockBalance } from "../ledger/ledger.ts";
import type { MerchantScope } from "../merchants/merchants.ts";
import type { Environment } from "../merchants/schema.ts";
import { toAmount } from "../shared/money.ts";
import { PayoutErrors } from "./errors.ts";
import type { PayoutRow } from "./schema.ts";
import { type PayoutDestination, type PayoutStatus, payouts } from "./schema.ts";

/** The simulated bank settles a payout this long after it was requested. */
export const PAYOUT_SETTLEMENT_MS = 30_000;

export function toPayoutJson(row: PayoutRow) {
  return {
    id: row.id,
    object: "payout" as const,
    amount: toAmount(row.amount),
    currency: row.currency,
    status: row.status,
    destination: {
      bank_code: row.destination.bank_code,
      // The full account number is not repeated in API answers and webhooks.
      account_number_last4: row.destination.account_number.slice(-4),
      account_name: row.destination.account_name,
    },
    failure_reason: row.failureReason,
    environment: row.environment,
    created: unixSeconds(row.createdAt),
  };
}

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
    await appendLedgerEntry(tx, deps.clock, scope, {
      currency: input.currency,
      amount: -input.amount,
      kind: "payout",
      sourceId: row.id,
    });
    return row;
  });
}

/**
 * Settles a pending payout: `payout.succeeded`, or `payout.failed` with the debit reversed by a new
 * ledger entry (never by editing the old one), in one transaction.
 *
 * @example await settlePayout(deps, scope, "po_…", "failed");
 */
export async function settlePayout(
  deps: Pick<Deps, "db" | "clock" | "deliveries">,
  scope: MerchantScope,
  id: string,
  outcome: Exclude<PayoutStatus, "pending">,
): Promise<PayoutRow> {
  const row = await deps.db.transaction(async (tx) => {
    const [payout] = await tx
      .select()
      .from(payouts)
      .where(
        and(
          eq(payouts.id, id),
          eq(payouts.merchantId, scope.merchantId),
          eq(payouts.environment, scope.environment),
        ),
      )
      .for("update");
    if (!payout) throw PayoutErrors.PAYOUT_NOT_FOUND();
    if (payout.status !== "pending") {
      throw PayoutErrors.INVALID_PAYOUT_TRANSITION({
        message: `A ${payout.status} payout cannot become ${outcome}.`,
      });
    }
    const [updated] = await tx
      .update(payouts)
      .set({
        status: outcome,
        updatedAt: deps.clock.now(),
        ...(outcome === "failed" ? { failureReason: "bank_rejected" } : {}),
      })
      .where(eq(payouts.id, payout.id))
      .returning();
    if (!updated) throw new Error("update returned no row");
    if (outcome === "failed") {
      await appendLedgerEntry(tx, deps.clock, scope, {
        currency: payout.currency,
        amount: payout.amount,
        kind: "payout_reversal",
        sourceId: payout.id,
      });
    }
    await recordEvent(tx, deps.clock, {
      ownerId: scope.merchantId,
      environment: scope.environment,
      type: `payout.${outcome}`,
      object: toPayoutJson(updated),
    });
    return updated;
  });
  deps.deliveries.wake();
  return row;
}

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
    .where(
      and(
        eq(payouts.id, id),
        eq(payouts.merchantId, scope.merchantId),
        eq(payouts.environment, scope.environment),
      ),
    )
    .limit(1);
  return row;
}

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
  return db
    .select()
    .from(payouts)
    .where(
      and(
        eq(payouts.merchantId, scope.merchantId),
        eq(payouts.environment, scope.environment),
        query.startingAfter ? lt(payouts.id, query.startingAfter) : undefined,
      ),
    )
    .orderBy(desc(payouts.id))
    .limit(query.limit + 1);
}

/**
 * The simulated bank: pays out pending payouts whose settlement time has come.
 *
 * @example await settleDuePayouts(deps);
 */
export async function settleDuePayouts(
  deps: Pick<Deps, "db" | "clock" | "deliveries" | "logger">,
): Promise<number> {
  const due = await deps.db
    .select({ id: payouts.id, merchantId: payouts.merchantId, environment: payouts.environment })
    .from(payouts)
    .where(and(eq(payouts.status, "pending"), lte(payouts.settlesAt, deps.clock.now())))
    .orderBy(asc(payouts.settlesAt))
    .limit(200);
  let settled = 0;
  for (const payout of due) {
    try {
      await settlePayout(
        deps,
        { merchantId: payout.merchantId, environment: payout.environment as Environment },
        payout.id,
        "succeeded",
      );
      settled += 1;
    } catch (error) {
      deps.logger.debug({ err: error, payout: payout.id }, "payout not settled");
    }
  }
  return settled;
}
