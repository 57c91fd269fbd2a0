import { periodicJob } from "@app/core";
import { pruneDeliveryRecords } from "@app/webhooks";
import type { Deps } from "../deps.ts";

/**
 * The retention job of webhook records: deletes attempt records, and finished deliveries, older than
 * 90 days (`pruneDeliveryRecords`) now and then every `intervalMs` until stopped. Events are kept
 * forever. Safe in several processes: it deletes in small batches by age.
 *
 * @example const retention = startWebhookRetention(deps, 3_600_000); … await retention.stop();
 */
export function startWebhookRetention(deps: Pick<Deps, "db" | "clock" | "logger">, intervalMs: number) {
  const job = periodicJob({
    run: () => pruneDeliveryRecords(deps),
    everyMs: intervalMs,
    onError: (error) => deps.logger.error({ err: error }, "webhook record retention failed"),
  });
  job.start();
  return { stop: () => job.stop() };
}
