import { type AnyColumn, type SQL, sql } from "drizzle-orm";
import type { Environment } from "./schema.ts";

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
