import { unixSeconds } from "@app/core";
import { toAmount } from "../shared/money.ts";
import type { PayoutRow } from "./schema.ts";

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
