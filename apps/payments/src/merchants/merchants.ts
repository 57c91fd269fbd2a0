import { type Clock, newId, newSecretToken, sha256Hex } from "@app/core";
import { type AnyColumn, eq, type SQL, sql } from "drizzle-orm";
import type { PaymentsDb } from "../db/index.ts";
import { type Environment, merchants, secretKeys } from "./schema.ts";

/** Who is calling: the merchant of the key and the key's mode. */
export interface MerchantScope {
  merchantId: string;
  environment: Environment;
}

/**
 * The condition that keeps a query to one merchant's rows in one mode: a row of another merchant,
 * or of the other mode, must never be found, changed or counted.
 *
 * @example db.select().from(refunds).where(and(eq(refunds.id, id), ofMerchant(refunds, scope)))
 */
export function ofMerchant(
  table: { merchantId: AnyColumn; environment: AnyColumn },
  scope: MerchantScope,
): SQL {
  return sql`${table.merchantId} = ${scope.merchantId} and ${table.environment} = ${scope.environment}`;
}

const KEY_PATTERN = /^sk_(test|live)_[A-Za-z0-9_-]{16,}$/;

/** The mode of a secret key from its prefix, or undefined when it is not shaped like one. */
export function environmentOfKey(key: string): Environment | undefined {
  const match = KEY_PATTERN.exec(key);
  return match ? (match[1] as Environment) : undefined;
}

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
