/** The ten event types of the seed. */
export const EVENT_TYPES = [
  "payment.pending",
  "payment.processing",
  "payment.succeeded",
  "payment.failed",
  "payment.expired",
  "payment.refunded",
  "refund.succeeded",
  "refund.failed",
  "payout.succeeded",
  "payout.failed",
] as const;

export type EventType = (typeof EVENT_TYPES)[number];
