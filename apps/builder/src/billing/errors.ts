import { defineErrors } from "@app/http";

export const BillingErrors = defineErrors({
  INSUFFICIENT_CREDITS: {
    status: 402,
    message: "This workspace is out of credits. Buy a credit pack (POST /api/billing/checkout) to continue.",
  },
  UNKNOWN_PACK: { status: 422, message: "There is no credit pack with this id." },
  ORDER_NOT_FOUND: { status: 404, message: "No order with this id." },
  BILLING_NOT_CONFIGURED: {
    status: 503,
    message: "Payments are not configured on this server (PAYMENTS_SECRET_KEY is not set).",
  },
  PAYMENT_SERVICE_FAILED: { status: 502, message: "The payment service could not create the payment." },
  WEBHOOK_NOT_READY: {
    status: 503,
    message: "The payment webhook endpoint is not registered yet; deliver again later.",
  },
  INVALID_SIGNATURE: { status: 400, message: "The X-Service-Signature header does not verify." },
  INVALID_EVENT: { status: 400, message: "The body is not a payment service event." },
});
