import { unixSeconds } from "@app/core";
import { toAmount } from "../shared/money.ts";
import type { PaymentRow } from "./schema.ts";

/**
 * The API shape of a payment (also `data.object` of its events).
 *
 * @example c.json(toPaymentJson(row, publicUrl), 201)
 */
export function toPaymentJson(row: PaymentRow, publicUrl: string) {
  return {
    id: row.id,
    object: "payment" as const,
    status: row.status,
    amount: toAmount(row.amount),
    currency: row.currency,
    method: row.method,
    provider: row.provider,
    fee_amount: toAmount(row.feeAmount),
    net_amount: toAmount(row.netAmount),
    amount_refunded: toAmount(row.amountRefunded),
    description: row.description,
    metadata: row.metadata,
    failure_reason: row.failureReason,
    environment: row.environment,
    checkout_url: `${publicUrl}/checkout/${row.id}`,
    return_url: row.returnUrl,
    expires_at: unixSeconds(row.expiresAt),
    created: unixSeconds(row.createdAt),
  };
}
