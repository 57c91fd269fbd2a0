import { type Clock, newId } from "@app/core";
import type { Logger } from "@app/http";
import { and, eq, isNull } from "drizzle-orm";
import type { BuilderConfig } from "../config.ts";
import type { BuilderDb } from "../db/index.ts";
import { BillingErrors } from "./errors.ts";
import { paymentServiceClient } from "./payment-service-client.ts";
import { BILLING_CURRENCY, toDecimalAmount } from "./price-table.ts";
import type { OrderRow } from "./schema.ts";
import { creditOrders } from "./schema.ts";

/** The payment methods the payment service offers; QRIS is the default for rupiah. */
export const PAYMENT_METHODS = ["qris", "virtual_account", "ewallet", "card", "retail"] as const;

/**
 * Starts buying a credit pack: records the order, creates its payment on the payment service
 * (server to server, `Idempotency-Key` = the order id, so a retried call cannot make a second
 * payment) with the order id in its metadata, and answers the order with the hosted checkout URL.
 * The credits arrive with the `payment.succeeded` event (webhook or reconciler).
 *
 * @example const { order, paymentId, checkoutUrl } = await createCheckout(deps, workspaceId, { pack: "pack_50k" });
 */
export async function createCheckout(
  deps: { db: BuilderDb; clock: Clock; logger: Logger; config: BuilderConfig },
  workspaceId: string,
  request: { pack: string; method?: (typeof PAYMENT_METHODS)[number] | undefined },
): Promise<{ order: OrderRow; paymentId: string; checkoutUrl: string }> {
  const pack = deps.config.billing.packs.find((candidate) => candidate.id === request.pack);
  if (!pack) {
    throw BillingErrors.UNKNOWN_PACK({
      message: `There is no credit pack ${request.pack}; the packs are ${deps.config.billing.packs.map((p) => p.id).join(", ")}.`,
      param: "pack",
    });
  }
  const client = paymentServiceClient(deps.config);
  if (!client) throw BillingErrors.BILLING_NOT_CONFIGURED();

  const now = deps.clock.now();
  const [order] = await deps.db
    .insert(creditOrders)
    .values({
      id: newId("ord", now.getTime()),
      workspaceId,
      packId: pack.id,
      credits: pack.credits,
      amount: pack.priceMinor,
      currency: BILLING_CURRENCY,
      status: "pending",
      createdAt: now,
      updatedAt: now,
    })
    .returning();
  if (!order) throw new Error("insert returned no row");

  let payment: Awaited<ReturnType<typeof client.createPayment>>;
  try {
    payment = await client.createPayment(
      {
        amount: toDecimalAmount(order.amount),
        currency: order.currency,
        method: request.method ?? "qris",
        description: `${order.credits.toLocaleString("en-US")} credits (${order.packId})`,
        metadata: { order_id: order.id, workspace_id: workspaceId, pack: order.packId },
        return_url: `${deps.config.publicUrl}/billing?order=${encodeURIComponent(order.id)}`,
      },
      order.id,
    );
  } catch (error) {
    deps.logger.error(
      { err: error instanceof Error ? error.message : String(error), order_id: order.id },
      "payment not created",
    );
    // Closed, not deleted: should the payment exist after all (an answer lost on the way), its
    // events still find the order through the metadata, and captured money is credited.
    await deps.db
      .update(creditOrders)
      .set({ status: "failed", failureReason: "payment_not_created", updatedAt: deps.clock.now() })
      .where(eq(creditOrders.id, order.id));
    throw BillingErrors.PAYMENT_SERVICE_FAILED();
  }

  const answer = { paymentId: payment.id, checkoutUrl: payment.checkout_url };
  const [updated] = await deps.db
    .update(creditOrders)
    .set({ paymentId: payment.id, checkoutUrl: payment.checkout_url, updatedAt: deps.clock.now() })
    .where(and(eq(creditOrders.id, order.id), isNull(creditOrders.paymentId)))
    .returning();
  if (updated) return { order: updated, ...answer };
  // An event about the payment overtook this answer and linked the order already.
  const [linked] = await deps.db
    .update(creditOrders)
    .set({ checkoutUrl: payment.checkout_url })
    .where(eq(creditOrders.id, order.id))
    .returning();
  if (!linked) throw new Error(`order ${order.id} disappeared`);
  return { order: linked, ...answer };
}
