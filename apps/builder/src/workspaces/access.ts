import type { Context } from "hono";
import { matchedRoutes } from "hono/route";
import type { Identity, Principal } from "../env.ts";
import { WorkspaceErrors } from "./errors.ts";
import type { MembershipCache } from "./memberships.ts";
import {
  AUDIT_ACTION_EXTENSION,
  defaultRequiredRole,
  isAtLeast,
  REQUIRED_ROLE_EXTENSION,
  type RequiredRole,
  type Role,
  weaker,
} from "./roles.ts";

/** The request header that names the workspace a request acts in. */
export const WORKSPACE_HEADER = "x-workspace-id";

type RouteDefinition = { type: string; route?: { method: string; path: string; [key: string]: unknown } };

/**
 * The required role of every documented route, read from the `x-required-role` its definition
 * declares (or the default for its method), and found for a request by the route Hono matched.
 *
 * @example const roles = new RouteRoles(() => app.openAPIRegistry.definitions); roles.requiredFor(c);
 */
export class RouteRoles {
  private table: Map<string, RouteRule> | undefined;

  constructor(private readonly definitions: () => readonly RouteDefinition[]) {}

  requiredFor(c: Context): RequiredRole {
    return this.ruleFor(c)?.required ?? defaultRequiredRole(c.req.method);
  }

  /**
   * The documented route Hono matched for the request (its template and rules), or undefined for a
   * path no route serves (which answers 404 after the checks, with the method's default role).
   */
  ruleFor(c: Context): RouteRule | undefined {
    this.table ??= this.build();
    for (const route of matchedRoutes(c)) {
      if (route.method === "ALL") continue;
      const found = this.table.get(
        `${route.method} ${route.path.replace(/:([A-Za-z_]+)(\{[^}]*\})?/g, "{$1}")}`,
      );
      if (found) return found;
    }
    return undefined;
  }

  private build(): Map<string, RouteRule> {
    const table = new Map<string, RouteRule>();
    for (const definition of this.definitions()) {
      const route = definition.route;
      if (definition.type !== "route" || !route) continue;
      const method = route.method.toUpperCase();
      const declared = route[REQUIRED_ROLE_EXTENSION] as RequiredRole | undefined;
      const action = route[AUDIT_ACTION_EXTENSION] as string | undefined;
      table.set(`${method} ${route.path}`, {
        template: `${method} ${route.path}`,
        required: declared ?? defaultRequiredRole(method),
        auditAction: action ?? (method === "DELETE" ? deletedAction(route.path) : undefined),
      });
    }
    return table;
  }
}

export interface RouteRule {
  /** `METHOD /api/path/{param}` */
  template: string;
  required: RequiredRole;
  /** What a successful call records in the audit log, if anything. */
  auditAction: string | undefined;
}

/** `DELETE /api/rag/documents/{id}` → `rag.documents.deleted`. */
function deletedAction(path: string): string {
  const parts = path
    .replace(/^\/api\//, "")
    .split("/")
    .filter((part) => part && !part.startsWith("{"));
  return `${parts.join(".")}.deleted`;
}

/**
 * The principal of a request: the workspace it acts in and the caller's role there, checked against
 * what the route needs. This is the one place roles are enforced.
 *
 * - An API key acts in its own workspace (another in X-Workspace-Id: 404), with the weaker of its
 *   role and its creator's current role; a creator who left takes the key's access with them.
 * - A session acts in X-Workspace-Id, else its active workspace, else its default one; a workspace it
 *   is not a member of (any more) is 404, so a removed member loses access with their next request.
 * - `account` routes (about the person, not a workspace) need a session and no role.
 */
export async function resolvePrincipal(
  identity: Identity,
  required: RequiredRole,
  requestedWorkspaceId: string | undefined,
  memberships: MembershipCache,
): Promise<Principal> {
  const principalIn = (workspaceId: string, role: Role): Principal => ({
    userId: identity.userId,
    workspaceId,
    role,
    via: identity.via,
    ...(identity.sessionId ? { sessionId: identity.sessionId } : {}),
  });
  if (identity.key) {
    if (required === "account") throw WorkspaceErrors.SESSION_REQUIRED();
    const { workspaceId } = identity.key;
    if (requestedWorkspaceId !== undefined && requestedWorkspaceId !== workspaceId)
      throw WorkspaceErrors.WORKSPACE_NOT_FOUND();
    const creatorRole = await memberships.role(workspaceId, identity.userId);
    if (!creatorRole) throw WorkspaceErrors.WORKSPACE_NOT_FOUND();
    return checked(principalIn(workspaceId, weaker(identity.key.role, creatorRole)), required);
  }
  if (required === "account") {
    // The person's default, so account routes never fail on a workspace they were removed from.
    const active = identity.activeWorkspaceId;
    const activeRole = active ? await memberships.role(active, identity.userId) : null;
    if (active && activeRole) return principalIn(active, activeRole);
    return principalIn(
      identity.defaultWorkspaceId,
      (await memberships.role(identity.defaultWorkspaceId, identity.userId)) ?? "viewer",
    );
  }
  const workspaceId = requestedWorkspaceId ?? identity.activeWorkspaceId ?? identity.defaultWorkspaceId;
  const role = await memberships.role(workspaceId, identity.userId);
  if (!role) throw WorkspaceErrors.WORKSPACE_NOT_FOUND();
  return checked(principalIn(workspaceId, role), required);
}

function checked(principal: Principal, required: Role): Principal {
  if (isAtLeast(principal.role, required)) return principal;
  throw WorkspaceErrors.FORBIDDEN_ROLE({
    message: `This needs the ${required} role or a stronger one; ${principal.via === "api_key" ? "this API key acts as" : "you are"} ${principal.role === "admin" || principal.role === "editor" || principal.role === "owner" ? "an" : "a"} ${principal.role} in this workspace.`,
  });
}
