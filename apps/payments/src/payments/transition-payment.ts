import { recordEvent } from "@app/webhooks";
import { and, eq } from "drizzle-orm";
import type { PaymentsTx } from "../db/index.ts";
import type { Deps } from "../deps.ts";
import { appendLedgerEntry } from "../ledger/append-ledger-entry.ts";
import type { MerchantScope } from "../merchants/merchant-scope.ts";
import { PaymentErrors } from "./errors.ts";
import { findPayment } from "./find-payment.ts";
import { toPaymentJson } from "./payment-json.ts";
import type { PaymentRow } from "./schema.ts";
import { type PaymentStatus, payments } from "./schema.ts";

/**
 * The state machine of the spec: every allowed move. Anything else is a 409, and since no state can
 * be reached twice, a payment moves at most once per state.
 */
const PAYMENT_TRANSITIONS: Record<PaymentStatus, readonly PaymentStatus[]> = {
  pending: ["processing", "failed", "expired"],
  processing: ["succeeded", "failed"],
  succeeded: ["refunded"],
  failed: [],
  expired: [],
  refunded: [],
};

/**
 * Moves a locked payment one step inside the caller's transaction: checks the state machine, writes the
 * new state, credits the ledger on `succeeded`, and records the event of the same name.
 *
 * @example await db.transaction((tx) => applyPaymentTransition(tx, deps, scope, payment, "processing"));
 */
export async function applyPaymentTransition(
  tx: PaymentsTx,
  deps: Pick<Deps, "clock" | "config">,
  scope: MerchantScope,
  payment: PaymentRow,
  to: PaymentStatus,
  details: { failureReason?: string } = {},
): Promise<PaymentRow> {
  if (!PAYMENT_TRANSITIONS[payment.status].includes(to)) {
    throw PaymentErrors.INVALID_STATE_TRANSITION({
      message: `A ${payment.status} payment cannot become ${to}.`,
    });
  }
  const now = deps.clock.now();
  if (payment.status === "pending" && to === "processing" && payment.expiresAt <= now) {
    throw PaymentErrors.INVALID_STATE_TRANSITION({ message: "The payment's checkout window has elapsed." });
  }
  const [updated] = await tx
    .update(payments)
    .set({
      status: to,
      updatedAt: now,
      ...(details.failureReason === undefined ? {} : { failureReason: details.failureReason }),
    })
    .where(and(eq(payments.id, payment.id), eq(payments.status, payment.status)))
    .returning();
  if (!updated) throw PaymentErrors.INVALID_STATE_TRANSITION({ message: "The payment changed meanwhile." });
  if (to === "succeeded") {
    await appendLedgerEntry(tx, deps.clock, scope, {
      currency: updated.currency,
      amount: updated.netAmount,
      kind: "payment",
      sourceId: updated.id,
    });
  }
  await recordEvent(tx, deps.clock, {
    ownerId: scope.merchantId,
    environment: scope.environment,
    type: `payment.${to}`,
    object: toPaymentJson(updated, deps.config.publicUrl),
  });
  return updated;
}

/**
 * Moves a payment through one or more states in one transaction (the `succeed` helper goes
 * pending → processing → succeeded), each with its event; 404 when unknown, 409 when not allowed.
 *
 * @example await transitionPayment(deps, scope, "pay_…", ["processing", "succeeded"]);
 */
export async function transitionPayment(
  deps: Pick<Deps, "db" | "clock" | "config" | "deliveries">,
  scope: MerchantScope,
  id: string,
  steps: readonly PaymentStatus[],
  details: { failureReason?: string } = {},
): Promise<PaymentRow> {
  const row = await deps.db.transaction(async (tx) => {
    let payment = await findPayment(tx, scope, id, { forUpdate: true });
    if (!payment) throw PaymentErrors.PAYMENT_NOT_FOUND();
    for (const step of steps) payment = await applyPaymentTransition(tx, deps, scope, payment, step, details);
    return payment;
  });
  deps.deliveries.wake();
  return row;
}
