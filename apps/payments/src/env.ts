import type { BaseVariables } from "@app/http";

export type AppEnv = { Variables: BaseVariables };
