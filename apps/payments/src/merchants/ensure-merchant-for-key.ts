import type { Clock } from "@app/core";
import type { PaymentsDb } from "../db/index.ts";
import { authenticateSecretKey } from "./authenticate-secret-key.ts";
import { createMerchant } from "./create-merchant.ts";
import type { MerchantScope } from "./merchant-scope.ts";

/**
 * Makes sure a merchant owns the bootstrap key (`PAYMENTS_SECRET_KEY`), creating one if none does.
 *
 * @example await ensureMerchantForKey({ db, clock }, "sk_test_…");
 */
export async function ensureMerchantForKey(
  deps: { db: PaymentsDb; clock: Clock },
  key: string,
): Promise<MerchantScope> {
  const existing = await authenticateSecretKey(deps.db, key);
  if (existing) return existing;
  await createMerchant(deps, { name: "Default merchant", keys: [key] });
  const created = await authenticateSecretKey(deps.db, key);
  if (!created) throw new Error("bootstrap merchant was not created");
  return created;
}
