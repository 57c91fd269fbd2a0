import { and, asc, eq, lte } from "drizzle-orm";
import type { Deps } from "../deps.ts";
import type { Environment } from "../merchants/schema.ts";
import { refunds } from "./schema.ts";
import { settleRefund } from "./settle-refund.ts";

/**
 * The simulated provider: settles pending refunds whose settlement time has come, as succeeded.
 *
 * @example await settleDueRefunds(deps);
 */
export async function settleDueRefunds(
  deps: Pick<Deps, "db" | "clock" | "config" | "deliveries" | "logger">,
): Promise<number> {
  const due = await deps.db
    .select({ id: refunds.id, merchantId: refunds.merchantId, environment: refunds.environment })
    .from(refunds)
    .where(and(eq(refunds.status, "pending"), lte(refunds.settlesAt, deps.clock.now())))
    .orderBy(asc(refunds.settlesAt))
    .limit(200);
  let settled = 0;
  for (const refund of due) {
    try {
      await settleRefund(
        deps,
        { merchantId: refund.merchantId, environment: refund.environment as Environment },
        refund.id,
        "succeeded",
      );
      settled += 1;
    } catch (error) {
      deps.logger.debug({ err: error, refund: refund.id }, "refund not settled");
    }
  }
  return settled;
}
