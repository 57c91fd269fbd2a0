import { newId } from "@app/core";
import { recordEvent } from "@app/webhooks";
import { sql } from "drizzle-orm";
import type { Deps } from "../deps.ts";
import { recoveryPoint } from "../idempotency/idempotency.ts";
import type { IdempotencyClaim } from "../idempotency/schema.ts";
import type { MerchantScope } from "../merchants/merchant-scope.ts";
import type { CreatePaymentInput } from "./contract.ts";
import { toPaymentJson } from "./payment-json.ts";
import { providerFor } from "./providers.ts";
import type { PaymentRow } from "./schema.ts";
import { payments } from "./schema.ts";

/**
 * Creates a `pending` payment routed to its method's provider. The payment and its `payment.pending`
 * event are written by one statement, so they commit together in one round trip; a request holding an
 * idempotency key writes its recovery point first, in the same transaction (see `recoveryPoint`: past
 * its deadline, or with its key taken over, nothing is written).
 *
 * @example const payment = await createPayment(deps, scope, { amount: 15000050n, currency: "IDR", method: "qris", expires_in: 86400 });
 */
export async function createPayment(
  deps: Pick<Deps, "db" | "clock" | "config" | "deliveries">,
  scope: MerchantScope,
  input: CreatePaymentInput,
  idempotency?: IdempotencyClaim,
): Promise<PaymentRow> {
  const now = deps.clock.now();
  const provider = providerFor(input.method);
  const fee = provider.fee(input.amount);
  const row: PaymentRow = {
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
    amountRefunded: 0n,
    description: input.description ?? null,
    returnUrl: input.return_url ?? null,
    metadata: input.metadata ?? {},
    failureReason: null,
    expiresAt: new Date(now.getTime() + input.expires_in * 1000),
    createdAt: now,
    updatedAt: now,
  };
  const event = {
    ownerId: scope.merchantId,
    environment: scope.environment,
    type: "payment.pending",
    object: toPaymentJson(row, deps.config.publicUrl),
  };
  // Drizzle puts the embedded insert in parentheses, as a CTE body needs.
  const insertPayment = sql`payment_row as ${deps.db.insert(payments).values(row)}`;
  if (idempotency) {
    await deps.db.transaction(async (tx) => {
      await recoveryPoint(tx, deps.clock, idempotency, row.id);
      await recordEvent(tx, deps.clock, event, [insertPayment]);
    });
  } else {
    await recordEvent(deps.db, deps.clock, event, [insertPayment]);
  }
  deps.deliveries.wake();
  return row;
}
