import { defineErrors } from "@app/http";

export const AuthErrors = defineErrors({
  MISSING_API_KEY: {
    status: 401,
    message: "Send your secret key as `Authorization: Bearer sk_test_…` or `sk_live_…`.",
  },
  INVALID_API_KEY: { status: 401, message: "The secret key is not valid." },
  TEST_MODE_ONLY: { status: 403, message: "This operation needs a test-mode key (sk_test_…)." },
});
