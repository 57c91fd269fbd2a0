import { sha256Hex } from "@app/core";
import { eq } from "drizzle-orm";
import type { PaymentsDb } from "../db/index.ts";
import { environmentOfKey } from "./environment-of-key.ts";
import type { MerchantScope } from "./merchant-scope.ts";
import { secretKeys } from "./schema.ts";

/**
 * The merchant and mode of a secret key, or null for an unknown or malformed key.
 *
 * @example const scope = await authenticateSecretKey(db, "sk_test_…");
 */
export async function authenticateSecretKey(db: PaymentsDb, key: string): Promise<MerchantScope | null> {
  if (!environmentOfKey(key)) return null;
  const [row] = await db
    .select({ merchantId: secretKeys.merchantId, environment: secretKeys.environment })
    .from(secretKeys)
    .where(eq(secretKeys.keyHash, sha256Hex(key)))
    .limit(1);
  return row ?? null;
}
