import type { MiddlewareHandler } from "hono";
import { findUser } from "../auth/users.ts";
import type { Deps } from "../deps.ts";
import type { AppEnv } from "../env.ts";
import type { RouteRoles } from "../workspaces/access.ts";
import { recordAudit } from "./record-audit.ts";

/** Request fields worth keeping in an entry; anything else (keys, secrets, graphs, prompts) stays out. */
const KEPT_FIELDS = [
  "role",
  "email",
  "name",
  "user_id",
  "url",
  "events",
  "disabled",
  "pack",
  "slug",
  "title",
  "provider",
  "notes",
  "expires_in_days",
];

/**
 * Records in the workspace's audit log every successful call of a route that declares an audit
 * action (`audited(…)`), and every successful DELETE: who (person or API key), what (the action, the
 * route, its path parameters and a few plain fields of the body), which resource and when. A
 * handler acting on another workspace than the request's (accepting an invitation, creating a
 * workspace) names it with `c.set("audit", { workspaceId })`.
 *
 * @example app.use("/api/*", auditWrites(deps, routeRoles));
 */
export function auditWrites(deps: Deps, routeRoles: RouteRoles): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    await next();
    if (c.req.method === "GET" || c.res.status >= 400) return;
    const rule = routeRoles.ruleFor(c);
    const principal = c.var.principal;
    if (!rule?.auditAction || !principal) return;
    const override = c.var.audit;
    const params = c.req.param() as Record<string, string>;
    const body = validatedBody(c);
    const created = c.res.status === 201 ? await createdId(c.res) : undefined;
    try {
      const actor = await findUser(deps.db, principal.userId);
      await recordAudit(deps, {
        workspaceId: override?.workspaceId ?? principal.workspaceId,
        actorUserId: principal.userId,
        actorEmail: actor?.email ?? null,
        via: principal.via,
        action: rule.auditAction,
        targetId: override?.targetId ?? created ?? params.user_id ?? params.key_id ?? params.id ?? null,
        details: {
          route: rule.template,
          ...(Object.keys(params).length > 0 ? { params } : {}),
          ...(body ? { fields: body } : {}),
        },
        requestId: c.var.requestId ?? null,
      });
    } catch (error) {
      // The change itself went through: the missing entry must reach a person, not fail the answer.
      deps.logger.error(
        { err: String(error), action: rule.auditAction, request_id: c.var.requestId },
        "audit log entry not written",
      );
    }
  };
}

function validatedBody(c: Parameters<MiddlewareHandler<AppEnv>>[0]): Record<string, unknown> | undefined {
  let body: unknown;
  try {
    body = (c.req.valid as (target: "json") => unknown)("json");
  } catch {
    return undefined;
  }
  if (!body || typeof body !== "object") return undefined;
  const kept = Object.fromEntries(Object.entries(body).filter(([key]) => KEPT_FIELDS.includes(key)));
  return Object.keys(kept).length > 0 ? kept : undefined;
}

async function createdId(response: Response): Promise<string | undefined> {
  if (!response.headers.get("content-type")?.includes("json")) return undefined;
  const body = (await response
    .clone()
    .json()
    .catch(() => undefined)) as { id?: unknown } | undefined;
  return typeof body?.id === "string" ? body.id : undefined;
}
