import { defineErrors } from "@app/http";

export const RefundErrors = defineErrors({
  REFUND_NOT_FOUND: { status: 404, message: "No refund with this id." },
  PAYMENT_NOT_REFUNDABLE: { status: 409, message: "Only a succeeded payment can be refunded." },
  AMOUNT_EXCEEDS_REFUNDABLE: { status: 422, message: "The amount is more than what remains refundable." },
  INVALID_REFUND_TRANSITION: {
    status: 409,
    message: "The refund cannot make this move from its current state.",
  },
});
