import { defineErrors } from "@app/http";

export const PaymentErrors = defineErrors({
  PAYMENT_NOT_FOUND: { status: 404, message: "No payment with this id." },
  INVALID_STATE_TRANSITION: {
    status: 409,
    message: "The payment cannot make this move from its current state.",
  },
});
