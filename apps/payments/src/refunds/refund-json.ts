import { unixSeconds } from "@app/core";
import { toAmount } from "../shared/money.ts";
import type { RefundRow } from "./schema.ts";

export function toRefundJson(row: RefundRow) {
  return {
    id: row.id,
    object: "refund" as const,
    payment: row.paymentId,
    amount: toAmount(row.amount),
    currency: row.currency,
    status: row.status,
    failure_reason: row.failureReason,
    environment: row.environment,
    created: unixSeconds(row.createdAt),
  };
}
