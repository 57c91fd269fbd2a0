import { type Clock, newId, newSecretToken, sha256Hex } from "@app/core";
import type { PaymentsDb } from "../db/index.ts";
import { environmentOfKey } from "./environment-of-key.ts";
import { merchants, secretKeys } from "./schema.ts";

/**
 * Creates a merchant with a test and a live secret key (or with the keys given), returning the keys in
 * full this once; only their hashes are stored.
 *
 * @example const { merchant, keys } = await createMerchant({ db, clock }, { name: "Toko Kopi" });
 */
export async function createMerchant(
  { db, clock }: { db: PaymentsDb; clock: Clock },
  input: { name: string; keys?: string[] },
): Promise<{ merchant: typeof merchants.$inferSelect; keys: { test?: string; live?: string } }> {
  const now = clock.now();
  const keyList = input.keys ?? [newSecretToken("sk_test"), newSecretToken("sk_live")];
  return db.transaction(async (tx) => {
    const [merchant] = await tx
      .insert(merchants)
      .values({ id: newId("mch", now.getTime()), name: input.name, createdAt: now })
      .returning();
    if (!merchant) throw new Error("insert returned no row");
    const keys: { test?: string; live?: string } = {};
    for (const key of keyList) {
      const environment = environmentOfKey(key);
      if (!environment) throw new Error("a secret key must look like sk_test_… or sk_live_…");
      keys[environment] = key;
      await tx.insert(secretKeys).values({
        id: newId("key", now.getTime()),
        merchantId: merchant.id,
        environment,
        keyHash: sha256Hex(key),
        keyPrefix: key.slice(0, 12),
        createdAt: now,
      });
    }
    return { merchant, keys };
  });
}
