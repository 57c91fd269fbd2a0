import { CommonErrors } from "@app/http";
import type { MiddlewareHandler } from "hono";
import type { Deps } from "../deps.ts";
import type { AppEnv } from "../env.ts";
import { authenticateApiKey } from "../keys/api-keys.ts";
import { personalWorkspaceId } from "../workspaces/personal-workspace.ts";
import type { Auth } from "./auth.ts";
import { AuthErrors } from "./errors.ts";

/**
 * Lets a request through with a session cookie or `Authorization: Bearer <api key>` and sets
 * the principal; anything else is a 401. Paths in `publicPaths` (prefixes) skip the check.
 */
export function requireAuth(
  deps: Deps,
  auth: Auth,
  publicPaths: readonly string[],
): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (publicPaths.some((prefix) => c.req.path.startsWith(prefix))) return next();
    const authorization = c.req.header("authorization");
    if (authorization !== undefined) {
      const match = /^Bearer\s+(\S+)$/i.exec(authorization);
      const principal = match?.[1] ? await authenticateApiKey(deps, match[1]) : null;
      if (!principal) throw AuthErrors.INVALID_API_KEY();
      c.set("principal", principal);
      return next();
    }
    const session = await auth.api.getSession({ headers: c.req.raw.headers }).catch(() => null);
    if (!session) throw CommonErrors.UNAUTHENTICATED();
    const workspaceId = await personalWorkspaceId(deps.db, session.user);
    c.set("principal", { userId: session.user.id, workspaceId, via: "session" });
    return next();
  };
}
