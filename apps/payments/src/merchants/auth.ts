import { sha256Hex } from "@app/core";
import type { MiddlewareHandler } from "hono";
import type { Deps } from "../deps.ts";
import type { AppEnv } from "../env.ts";
import { authenticateSecretKey } from "./authenticate-secret-key.ts";
import { AuthErrors } from "./errors.ts";
import type { MerchantScope } from "./merchant-scope.ts";

/**
 * Keys are looked up on every request; remembering a valid key briefly saves a query per call.
 * Keys cannot be revoked through the API yet, so a short memory cannot keep a revoked key alive for
 * long; when revocation arrives, keep this TTL below the promised revocation delay.
 */
const KEY_CACHE_TTL_MS = 30_000;
const KEY_CACHE_MAX = 10_000;

/**
 * Lets a request through with a merchant's secret key and sets its scope; anything else is a 401.
 *
 * @example app.use("/v1/*", requireSecretKey(deps))
 */
export function requireSecretKey(deps: Deps): MiddlewareHandler<AppEnv> {
  const remembered = new Map<string, { scope: MerchantScope; until: number }>();
  return async (c, next) => {
    const authorization = c.req.header("authorization");
    if (!authorization) throw AuthErrors.MISSING_API_KEY();
    const key = /^Bearer\s+(\S+)$/i.exec(authorization)?.[1];
    if (!key) throw AuthErrors.INVALID_API_KEY();
    const now = deps.clock.now().getTime();
    // Keyed by hash so the process does not keep a table of plaintext keys.
    const keyHash = sha256Hex(key);
    const entry = remembered.get(keyHash);
    let scope = entry && entry.until > now ? entry.scope : undefined;
    if (!scope) {
      const found = await authenticateSecretKey(deps.db, key);
      if (!found) throw AuthErrors.INVALID_API_KEY();
      if (remembered.size >= KEY_CACHE_MAX) remembered.clear();
      remembered.set(keyHash, { scope: found, until: now + KEY_CACHE_TTL_MS });
      scope = found;
    }
    c.set("merchant", scope);
    return next();
  };
}
