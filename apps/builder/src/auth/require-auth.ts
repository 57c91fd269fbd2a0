import { sha256Hex } from "@app/core";
import { CommonErrors } from "@app/http";
import type { Context, MiddlewareHandler } from "hono";
import { getCookie } from "hono/cookie";
import type { Deps } from "../deps.ts";
import type { AppEnv } from "../env.ts";
import { authenticateApiKey } from "../keys/authenticate-api-key.ts";
import { personalWorkspaceId } from "../workspaces/personal-workspace.ts";
import type { Auth } from "./auth.ts";
import { AuthErrors } from "./errors.ts";
import {
  apiKeyCredential,
  type PrincipalCache,
  SESSION_COOKIE,
  sessionCredential,
} from "./principal-cache.ts";

/**
 * What a 401 answers in `WWW-Authenticate` (RFC 6750): every route takes an API key as a bearer
 * token, and clients such as MCP's read this header to learn how to authenticate.
 */
export const BEARER_CHALLENGE = { "www-authenticate": 'Bearer realm="builder"' };
const INVALID_TOKEN_CHALLENGE = { "www-authenticate": 'Bearer realm="builder", error="invalid_token"' };

/**
 * Lets a request through with a session cookie or `Authorization: Bearer <api key>` and sets
 * the principal; anything else is a 401 with a bearer challenge. Paths in `publicPaths`
 * (prefixes) skip the check.
 */
export function requireAuth(
  deps: Deps,
  auth: Auth,
  principals: PrincipalCache,
  publicPaths: readonly string[],
): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (publicPaths.some((prefix) => c.req.path.startsWith(prefix))) return next();
    const authorization = c.req.header("authorization");
    if (authorization !== undefined) {
      const token = /^Bearer\s+(\S+)$/i.exec(authorization)?.[1];
      if (!token) throw AuthErrors.INVALID_API_KEY({ headers: INVALID_TOKEN_CHALLENGE });
      const credential = apiKeyCredential(sha256Hex(token));
      const principal = principals.get(credential) ?? (await authenticateApiKey(deps, token));
      if (!principal) throw AuthErrors.INVALID_API_KEY({ headers: INVALID_TOKEN_CHALLENGE });
      principals.set(credential, principal);
      c.set("principal", principal);
      return next();
    }
    const cookie = sessionCookieValue(c);
    if (!cookie) throw CommonErrors.UNAUTHENTICATED({ headers: BEARER_CHALLENGE });
    const credential = sessionCredential(cookie);
    let principal = principals.get(credential);
    if (!principal) {
      const session = await auth.api.getSession({ headers: c.req.raw.headers }).catch(() => null);
      if (!session) throw CommonErrors.UNAUTHENTICATED({ headers: BEARER_CHALLENGE });
      const workspaceId = await personalWorkspaceId(deps, session.user);
      principal = { userId: session.user.id, workspaceId, via: "session", sessionId: session.session.id };
      principals.set(credential, principal);
    }
    c.set("principal", principal);
    return next();
  };
}

/** better-auth prefixes the cookie with `__Secure-` when the public URL is https. */
export function sessionCookieValue(c: Context): string | undefined {
  return getCookie(c, SESSION_COOKIE) ?? getCookie(c, `__Secure-${SESSION_COOKIE}`);
}
