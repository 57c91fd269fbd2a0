import { newId } from "@app/core";
import { recordEvent } from "@app/webhooks";
import type { Deps } from "../deps.ts";
import type { MerchantScope } from "../merchants/merchants.ts";
import type { CreatePaymentInput } from "./contract.ts";
import { type PaymentRow, toPaymentJson } from "./payments.ts";
import { providerFor } from "./providers.ts";
import { payments } from "./schema.ts";

/**
 * Creates a `pending` payment routed to its method's provider, with its `payment.pending` event in the
 * same transaction.
 *
 * @example const payment = await createPayment(deps, scope, { amount: 15000050n, currency: "IDR", method: "qris", expires_in: 86400 });
 */
export async function createPayment(
  deps: Pick<Deps, "db" | "clock" | "config" | "deliveries">,
  scope: MerchantScope,
  input: CreatePaymentInput,
): Promise<PaymentRow> {
  const now = deps.clock.now();
  const provider = providerFor(input.method);
  const fee = provider.fee(input.amount);
  const row = await deps.db.transaction(async (tx) => {
    const [inserted] = await tx
      .insert(payments)
      .values({
        id: newId("pay", now.getTime()),
        merchantId: scope.merchantId,
        environment: scope.environment,
        status: "pending",
        amount: input.amount,
        currency: input.currency,
        method: input.method,
        provider: provider.name,
        feeAmount: fee,
        netAmount: input.amount - fee,
        description: input.description ?? null,
        returnUrl: input.return_url ?? null,
        metadata: input.metadata ?? {},
        expiresAt: new Date(now.getTime() + input.expires_in * 1000),
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    if (!inserted) throw new Error("insert returned no row");
    await recordEvent(tx, deps.clock, {
      ownerId: scope.merchantId,
      environment: scope.environment,
      type: "payment.pending",
      object: toPaymentJson(inserted, deps.config.publicUrl),
    });
    return inserted;
  });
  deps.deliveries.wake();
  return row;
}
