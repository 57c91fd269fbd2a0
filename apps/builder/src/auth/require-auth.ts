import { sha256Hex } from "@app/core";
import { CommonErrors, idPattern } from "@app/http";
import type { Context, MiddlewareHandler } from "hono";
import { getCookie } from "hono/cookie";
import type { Deps } from "../deps.ts";
import type { AppEnv, Identity } from "../env.ts";
import { authenticateApiKey } from "../keys/authenticate-api-key.ts";
import { type RouteRoles, resolvePrincipal, WORKSPACE_HEADER } from "../workspaces/access.ts";
import { WorkspaceErrors } from "../workspaces/errors.ts";
import type { MembershipCache } from "../workspaces/memberships.ts";
import { defaultWorkspaceId } from "../workspaces/personal-workspace.ts";
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
 * Lets a request through with a session cookie or `Authorization: Bearer <api key>`, then sets the
 * principal: the workspace the request acts in and the caller's role there, checked against the
 * role its route requires (`resolvePrincipal`, the one place roles are enforced). No credential is
 * a 401 with a bearer challenge. Paths in `publicPaths` (prefixes) skip both checks.
 */
export function requireAuth(
  deps: Deps,
  auth: Auth,
  access: { principals: PrincipalCache; memberships: MembershipCache; routeRoles: RouteRoles },
  publicPaths: readonly string[],
): MiddlewareHandler<AppEnv> {
  const { principals, memberships, routeRoles } = access;
  return async (c, next) => {
    if (publicPaths.some((prefix) => c.req.path.startsWith(prefix))) return next();
    const identity = await authenticate(c);
    const requested = c.req.header(WORKSPACE_HEADER)?.trim();
    // An id that cannot be a workspace's is no workspace of yours: the same 404, without a query.
    if (requested !== undefined && !idPattern("wsp").test(requested))
      throw WorkspaceErrors.WORKSPACE_NOT_FOUND();
    c.set("principal", await resolvePrincipal(identity, routeRoles.requiredFor(c), requested, memberships));
    return next();
  };

  async function authenticate(c: Context): Promise<Identity> {
    const authorization = c.req.header("authorization");
    if (authorization !== undefined) {
      const token = /^Bearer\s+(\S+)$/i.exec(authorization)?.[1];
      if (!token) throw AuthErrors.INVALID_API_KEY({ headers: INVALID_TOKEN_CHALLENGE });
      const credential = apiKeyCredential(sha256Hex(token));
      const identity = principals.get(credential) ?? (await authenticateApiKey(deps, token));
      if (!identity) throw AuthErrors.INVALID_API_KEY({ headers: INVALID_TOKEN_CHALLENGE });
      principals.set(credential, identity);
      return identity;
    }
    const cookie = sessionCookieValue(c);
    if (!cookie) throw CommonErrors.UNAUTHENTICATED({ headers: BEARER_CHALLENGE });
    const credential = sessionCredential(cookie);
    const cached = principals.get(credential);
    if (cached) return cached;
    const session = await auth.api.getSession({ headers: c.req.raw.headers }).catch(() => null);
    if (!session) throw CommonErrors.UNAUTHENTICATED({ headers: BEARER_CHALLENGE });
    const identity: Identity = {
      userId: session.user.id,
      via: "session",
      sessionId: session.session.id,
      activeWorkspaceId: (session.session as { activeWorkspaceId?: string | null }).activeWorkspaceId ?? null,
      defaultWorkspaceId: await defaultWorkspaceId(deps, session.user),
    };
    principals.set(credential, identity);
    return identity;
  }
}

/** better-auth prefixes the cookie with `__Secure-` when the public URL is https. */
export function sessionCookieValue(c: Context): string | undefined {
  return getCookie(c, SESSION_COOKIE) ?? getCookie(c, `__Secure-${SESSION_COOKIE}`);
}
