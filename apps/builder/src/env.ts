import type { BaseVariables } from "@app/http";
import type { Role } from "./workspaces/roles.ts";

/** Who presented the credential, before the workspace of the request is known; cached per credential. */
export interface Identity {
  userId: string;
  via: "session" | "api_key";
  /** The better-auth session behind a cookie, so its revocation can evict it from the cache. */
  sessionId?: string;
  /** The session's chosen workspace (POST /api/workspaces/{id}/activate), if any. */
  activeWorkspaceId?: string | null;
  /** Where a session works when it names no workspace and has none active. */
  defaultWorkspaceId: string;
  /** An API key's own workspace and role. */
  key?: { workspaceId: string; role: Role };
}

/** Who is calling, in which workspace, with which role: set by the auth middleware on every protected route. */
export interface Principal {
  userId: string;
  workspaceId: string;
  role: Role;
  via: "session" | "api_key";
  sessionId?: string;
}

/** Set by a handler whose change belongs to another workspace than the request's (the audit log records it there). */
export interface AuditOverride {
  workspaceId?: string;
  targetId?: string;
}

export type AppEnv = { Variables: BaseVariables & { principal: Principal; audit?: AuditOverride } };
