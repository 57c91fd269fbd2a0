import { defineErrors } from "@app/http";

export const PayoutErrors = defineErrors({
  PAYOUT_NOT_FOUND: { status: 404, message: "No payout with this id." },
  INSUFFICIENT_BALANCE: { status: 422, message: "The amount is more than the available balance." },
  INVALID_PAYOUT_TRANSITION: {
    status: 409,
    message: "The payout cannot make this move from its current state.",
  },
});
