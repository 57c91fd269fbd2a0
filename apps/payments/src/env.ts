import type { BaseVariables } from "@app/http";
import type { MerchantScope } from "./merchants/merchants.ts";

export type AppEnv = { Variables: BaseVariables & { merchant: MerchantScope } };
