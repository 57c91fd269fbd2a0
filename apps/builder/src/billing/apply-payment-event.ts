import type { Clock } from "@app/core";
import type { Logger } from "@app/http";
import { and, eq, isNull } from "drizzle-orm";
import { z } from "zod";
import type { BuilderDb } from "../db/index.ts";
import type { DeliveryNotifier } from "../events/emit-event.ts";
import { addCredits } from "./add-credits.ts";
import { appendLedgerEntries } from "./append-ledger-entries.ts";
import { creditedForOrder } from "./credited-for-order.ts";
import { purchaseReference, refundReference } from "./ledger-references.ts";
import type { PaymentServiceEvent } from "./payment-service-client.ts";
import { fromAmount } from "./price-table.ts";
import type { OrderRow } from "./schema.ts";
import { creditOrders, type OrderStatus, paymentServiceEvents } from "./schema.ts";

/**
 * What became of an event: `applied` changed an order (or the ledger), `duplicate` was handled
 * before, `unknown_order` is about no order of ours, `ignored` changed nothing (a type billing does
 * not act on, a stale move such as a failure after the payment succeeded, an amount that does not
 * match the order).
 */
export type EventOutcome = "applied" | "duplicate" | "ignored" | "unknown_order";

const paymentObject = z.object({
  id: z.string().max(64),
  object: z.literal("payment"),
  amount: z.number(),
  currency: z.string(),
  metadata: z.record(z.string(), z.string()).optional(),
  failure_reason: z.string().nullable().optional(),
});

/**
 * Applies one payment service event to the orders and the ledger, once: the event's id is recorded
 * in the same transaction as its effects, so the webhook and the reconciler (and any redelivery)
 * share this handler safely. Delivery order is not guaranteed, so each move checks the order's state:
 * `payment.succeeded` credits the pack unless the order was already paid or refunded;
 * `payment.failed`/`payment.expired` close a pending order; `payment.refunded` debits what the
 * purchase credited (nothing if it never was) and closes the order for good.
 *
 * @example const outcome = await applyPaymentEvent(deps, event, "webhook");
 */
export async function applyPaymentEvent(
  deps: { db: BuilderDb; clock: Clock; logger: Logger; deliveries?: DeliveryNotifier | undefined },
  event: PaymentServiceEvent,
  source: "webhook" | "reconciler",
): Promise<EventOutcome> {
  const payment = paymentObject.safeParse(event.data.object);
  const paymentId = payment.success ? payment.data.id : null;
  const outcome = await deps.db.transaction(async (tx) => {
    const [claimed] = await tx
      .insert(paymentServiceEvents)
      .values({
        id: event.id,
        type: event.type,
        paymentId,
        outcome: "ignored",
        source,
        receivedAt: deps.clock.now(),
      })
      .onConflictDoNothing({ target: paymentServiceEvents.id })
      .returning({ id: paymentServiceEvents.id });
    if (!claimed) return "duplicate";
    if (!payment.success || !isHandled(event.type)) return "ignored";

    const order = await findOrder(tx, payment.data.id, payment.data.metadata?.order_id);
    if (!order) {
      await tx
        .update(paymentServiceEvents)
        .set({ outcome: "unknown_order" })
        .where(eq(paymentServiceEvents.id, event.id));
      return "unknown_order";
    }
    let outcome: EventOutcome;
    if (fromAmount(payment.data.amount) !== order.amount || payment.data.currency !== order.currency) {
      deps.logger.warn(
        { event_id: event.id, order_id: order.id, payment_id: payment.data.id },
        "payment amount does not match its order; event ignored",
      );
      outcome = "ignored";
    } else {
      outcome = await applyMove({ db: tx, clock: deps.clock }, order, event.type, payment.data);
    }
    await tx
      .update(paymentServiceEvents)
      .set({ outcome, orderId: order.id })
      .where(eq(paymentServiceEvents.id, event.id));
    return outcome;
  });
  // Credits added a `billing.credits.added` event in that transaction: send it now.
  if (outcome === "applied") deps.deliveries?.wake();
  return outcome;
}

const HANDLED = new Set(["payment.succeeded", "payment.failed", "payment.expired", "payment.refunded"]);

function isHandled(type: string): boolean {
  return HANDLED.has(type);
}

/**
 * The order a payment pays, locked: by payment id, or, when the order has not learnt its payment id
 * yet (the webhook overtook the checkout's answer), by the order id the payment carries in metadata.
 */
async function findOrder(
  db: BuilderDb,
  paymentId: string,
  orderId: string | undefined,
): Promise<OrderRow | undefined> {
  const [byPayment] = await db
    .select()
    .from(creditOrders)
    .where(eq(creditOrders.paymentId, paymentId))
    .for("update");
  if (byPayment) return byPayment;
  if (!orderId) return undefined;
  const [byOrder] = await db
    .update(creditOrders)
    .set({ paymentId })
    .where(and(eq(creditOrders.id, orderId), isNull(creditOrders.paymentId)))
    .returning();
  return byOrder;
}

async function applyMove(
  deps: { db: BuilderDb; clock: Clock },
  order: OrderRow,
  type: string,
  payment: z.infer<typeof paymentObject>,
): Promise<EventOutcome> {
  const now = deps.clock.now();
  const setStatus = (status: OrderStatus, extra: Partial<OrderRow> = {}) =>
    deps.db
      .update(creditOrders)
      .set({ status, updatedAt: now, ...extra })
      .where(eq(creditOrders.id, order.id));

  switch (type) {
    case "payment.succeeded": {
      // Captured money is credited even on an order closed locally (its creation answer was lost).
      if (order.status === "paid" || order.status === "refunded") return "ignored";
      await addCredits(deps, {
        workspaceId: order.workspaceId,
        credits: order.credits,
        kind: "purchase",
        description: `Credit pack ${order.packId}`,
        reference: purchaseReference(order.id),
        orderId: order.id,
        details: { pack: order.packId, payment_id: payment.id },
      });
      await setStatus("paid", { paidAt: now, failureReason: null });
      return "applied";
    }
    case "payment.failed":
    case "payment.expired": {
      if (order.status !== "pending") return "ignored";
      await setStatus(type === "payment.failed" ? "failed" : "expired", {
        failureReason: type === "payment.failed" ? (payment.failure_reason ?? "payment_failed") : "expired",
      });
      return "applied";
    }
    case "payment.refunded": {
      if (order.status === "refunded") return "ignored";
      const credited = await creditedForOrder(deps.db, order.id);
      if (credited !== undefined) {
        await appendLedgerEntries(deps.db, [
          {
            workspaceId: order.workspaceId,
            kind: "refund",
            credits: -credited,
            description: `Refund of credit pack ${order.packId}`,
            reference: refundReference(order.id),
            orderId: order.id,
            details: { pack: order.packId, payment_id: payment.id },
            createdAt: now,
          },
        ]);
      }
      await setStatus("refunded");
      return "applied";
    }
    default:
      return "ignored";
  }
}
