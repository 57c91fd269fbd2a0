import { defineErrors } from "@app/http";
import type { MiddlewareHandler } from "hono";
import type { Deps } from "../deps.ts";
import type { AppEnv } from "../env.ts";
import { authenticateSecretKey } from "./merchants.ts";

export const AuthErrors = defineErrors({
  MISSING_API_KEY: {
    status: 401,
    message: "Send your secret key as `Authorization: Bearer sk_test_…` or `sk_live_…`.",
  },
  INVALID_API_KEY: { status: 401, message: "The secret key is not valid." },
  TEST_MODE_ONLY: { status: 403, message: "This operation needs a test-mode key (sk_test_…)." },
});

/**
 * Lets a request through with a merchant's secret key and sets its scope; anything else is a 401.
 *
 * @example app.use("/v1/*", requireSecretKey(deps))
 */
export function requireSecretKey(deps: Deps): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const authorization = c.req.header("authorization");
    if (!authorization) throw AuthErrors.MISSING_API_KEY();
    const match = /^Bearer\s+(\S+)$/i.exec(authorization);
    const scope = match?.[1] ? await authenticateSecretKey(deps.db, match[1]) : null;
    if (!scope) throw AuthErrors.INVALID_API_KEY();
    c.set("merchant", scope);
    return next();
  };
}
