import { eq } from "drizzle-orm";
import type { PaymentsDb } from "../db/index.ts";
import type { PaymentRow } from "./schema.ts";
import { payments } from "./schema.ts";

/**
 * A payment by id alone, for the public checkout page (its id is the capability, as with hosted pages).
 *
 * @example const payment = await findPaymentById(db, "pay_…");
 */
export async function findPaymentById(db: PaymentsDb, id: string): Promise<PaymentRow | undefined> {
  const [row] = await db.select().from(payments).where(eq(payments.id, id)).limit(1);
  return row;
}
