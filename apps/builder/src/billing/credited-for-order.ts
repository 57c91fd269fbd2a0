import { eq } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import { purchaseReference } from "./ledger-references.ts";
import { creditLedger } from "./schema.ts";

/**
 * The credits an order's purchase booked, or undefined when it was never credited.
 *
 * @example const credited = await creditedForOrder(tx, order.id);
 */
export async function creditedForOrder(db: BuilderDb, orderId: string): Promise<number | undefined> {
  const [row] = await db
    .select({ credits: creditLedger.credits })
    .from(creditLedger)
    .where(eq(creditLedger.reference, purchaseReference(orderId)))
    .limit(1);
  return row?.credits;
}
