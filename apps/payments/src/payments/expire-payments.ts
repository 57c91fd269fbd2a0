import { and, asc, eq, lte } from "drizzle-orm";
import type { Deps } from "../deps.ts";
import type { Environment } from "../merchants/schema.ts";
import { payments } from "./schema.ts";
import { transitionPayment } from "./transition-payment.ts";

/**
 * The expiry sweeper: moves pending payments whose checkout window has elapsed to `expired`
 * (one transaction each, so one failure does not hold back the rest). Returns how many moved.
 *
 * @example await expireDuePayments(deps); // run every few seconds
 */
export async function expireDuePayments(
  deps: Pick<Deps, "db" | "clock" | "config" | "deliveries" | "logger">,
  options: { batchSize?: number } = {},
): Promise<number> {
  const due = await deps.db
    .select({ id: payments.id, merchantId: payments.merchantId, environment: payments.environment })
    .from(payments)
    .where(and(eq(payments.status, "pending"), lte(payments.expiresAt, deps.clock.now())))
    .orderBy(asc(payments.expiresAt))
    .limit(options.batchSize ?? 200);
  let expired = 0;
  for (const payment of due) {
    try {
      const scope = { merchantId: payment.merchantId, environment: payment.environment as Environment };
      await transitionPayment(deps, scope, payment.id, ["expired"]);
      expired += 1;
    } catch (error) {
      // Paid or failed in the meantime: nothing to expire.
      deps.logger.debug({ err: error, payment: payment.id }, "payment not expired");
    }
  }
  return expired;
}
