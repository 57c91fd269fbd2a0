import type { BaseVariables } from "@app/http";

/** Who is calling: set by the auth middleware on every protected route. */
export interface Principal {
  userId: string;
  workspaceId: string;
  via: "session" | "api_key";
  /** The better-auth session behind a cookie, so its revocation can evict it from the cache. */
  sessionId?: string;
}

export type AppEnv = { Variables: BaseVariables & { principal: Principal } };
