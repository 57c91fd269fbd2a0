import { and, asc, eq, lte } from "drizzle-orm";
import type { Deps } from "../deps.ts";
import type { Environment } from "../merchants/schema.ts";
import { payouts } from "./schema.ts";
import { settlePayout } from "./settle-payout.ts";

/**
 * The simulated bank: pays out pending payouts whose settlement time has come.
 *
 * @example await settleDuePayouts(deps);
 */
export async function settleDuePayouts(
  deps: Pick<Deps, "db" | "clock" | "deliveries" | "logger">,
): Promise<number> {
  const due = await deps.db
    .select({ id: payouts.id, merchantId: payouts.merchantId, environment: payouts.environment })
    .from(payouts)
    .where(and(eq(payouts.status, "pending"), lte(payouts.settlesAt, deps.clock.now())))
    .orderBy(asc(payouts.settlesAt))
    .limit(200);
  let settled = 0;
  for (const payout of due) {
    try {
      await settlePayout(
        deps,
        { merchantId: payout.merchantId, environment: payout.environment as Environment },
        payout.id,
        "succeeded",
      );
      settled += 1;
    } catch (error) {
      deps.logger.debug({ err: error, payout: payout.id }, "payout not settled");
    }
  }
  return settled;
}
