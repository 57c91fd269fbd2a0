/** A member's role in a workspace, weakest last. */
export const ROLES = ["owner", "admin", "editor", "viewer"] as const;
export type Role = (typeof ROLES)[number];

/** The roles an invitation, a role change or an API key can give: ownership only moves by transfer. */
export const ASSIGNABLE_ROLES = ["admin", "editor", "viewer"] as const;
export type AssignableRole = (typeof ASSIGNABLE_ROLES)[number];

/**
 * What a route needs: a least role in the request's workspace, or `account` for routes about the
 * signed-in person rather than one workspace (list and create workspaces, accept an invitation),
 * which a session may call and an API key may not.
 */
export type RequiredRole = Role | "account";

/** The OpenAPI extension that carries a route's required role: declared with the route, read by one middleware. */
export const REQUIRED_ROLE_EXTENSION = "x-required-role";

const RANK: Record<Role, number> = { owner: 4, admin: 3, editor: 2, viewer: 1 };

/** Whether `role` may do what needs `needed`. */
export function isAtLeast(role: Role, needed: Role): boolean {
  return RANK[role] >= RANK[needed];
}

/** The weaker of two roles: an API key never does more than the member who made it. */
export function weaker(a: Role, b: Role): Role {
  return RANK[a] <= RANK[b] ? a : b;
}

export function isRole(value: unknown): value is Role {
  return typeof value === "string" && (ROLES as readonly string[]).includes(value);
}

/**
 * The required role of a route, spread into its `createRoute({ … })`. A route that declares none
 * needs `viewer` to read (GET) and `editor` for anything else.
 *
 * @example createRoute({ method: "post", path: "/", ...requires("admin"), … })
 */
export function requires(role: RequiredRole) {
  return { [REQUIRED_ROLE_EXTENSION]: role } as { "x-required-role": RequiredRole };
}

/** What a route needs when it declares nothing: reading is for every member, writing for editors. */
export function defaultRequiredRole(method: string): Role {
  return method.toUpperCase() === "GET" || method.toUpperCase() === "HEAD" ? "viewer" : "editor";
}

/** The OpenAPI extension that names the audit-log action a route records when it succeeds. */
export const AUDIT_ACTION_EXTENSION = "x-audit-action";

/**
 * Records the route's successful calls in the workspace's audit log under `action`, spread into its
 * `createRoute({ … })` beside `requires(…)`. Every DELETE is recorded even without it.
 *
 * @example createRoute({ method: "post", path: "/", ...requires("admin"), ...audited("credential.created"), … })
 */
export function audited(action: string) {
  return { [AUDIT_ACTION_EXTENSION]: action } as { "x-audit-action": string };
}
