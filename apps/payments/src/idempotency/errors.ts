import { defineErrors } from "@app/http";

export const IdempotencyErrors = defineErrors({
  INVALID_IDEMPOTENCY_KEY: { status: 422, message: "Idempotency-Key must be 1 to 255 printable characters." },
  IDEMPOTENCY_KEY_REUSED: {
    status: 422,
    message: "This Idempotency-Key was used with a different request; use a new key for a new request.",
  },
  REQUEST_TIMEOUT: {
    status: 503,
    message:
      "The request did not finish within its 30 s deadline and changed nothing; send it again with the same Idempotency-Key.",
  },
  IDEMPOTENCY_KEY_IN_USE: {
    status: 409,
    message: "A request with this Idempotency-Key is still being processed; retry in a moment.",
  },
});
