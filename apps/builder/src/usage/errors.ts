import { defineErrors } from "@app/http";

export const UsageErrors = defineErrors({
  INVALID_RANGE: { status: 422, message: "`from` must be before `to`." },
});
