import type { BaseVariables } from "@app/http";
import type { IdempotencyClaim } from "./idempotency/schema.ts";
import type { MerchantScope } from "./merchants/merchant-scope.ts";

export type AppEnv = {
  Variables: BaseVariables & {
    merchant: MerchantScope;
    /** Set on a POST sent with an `Idempotency-Key`: use-cases record their recovery point under it. */
    idempotency?: IdempotencyClaim;
  };
};
