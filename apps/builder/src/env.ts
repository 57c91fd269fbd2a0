import type { BaseVariables } from "@app/http";

/** Who is calling: set by the auth middleware on every protected route. */
export interface Principal {
  userId: string;
  workspaceId: string;
  via: "session" | "api_key";
}

export type AppEnv = { Variables: BaseVariables & { principal: Principal } };
