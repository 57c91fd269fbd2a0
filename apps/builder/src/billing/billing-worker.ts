import type { Clock } from "@app/core";
import { periodicJob } from "@app/core";
import type { Logger } from "@app/http";
import type { BuilderConfig } from "../config.ts";
import type { BuilderDb } from "../db/index.ts";
import { billingWebhookUrl, connectPaymentService } from "./connect-payment-service.ts";
import { reconcilePayments } from "./reconcile-payments.ts";

export interface BillingWorker {
  /** Begins in the background: the builder starts whether or not the payment service is up. */
  start(): void;
  stop(): Promise<void>;
}

const FIRST_RETRY_MS = 1_000;

/**
 * The builder's background work as a merchant: register the webhook endpoint on the payment
 * service (retried with backoff until the service answers), reconcile through the events API at
 * once, then every `BILLING_RECONCILE_INTERVAL` seconds. Nothing runs without `PAYMENTS_SECRET_KEY`.
 *
 * @example const worker = createBillingWorker(deps); worker.start(); … await worker.stop();
 */
export function createBillingWorker(deps: {
  db: BuilderDb;
  clock: Clock;
  logger: Logger;
  config: BuilderConfig;
}): BillingWorker {
  const intervalMs = deps.config.billing.reconcileIntervalSeconds * 1000;
  let isStopped = false;
  let isConnected = false;
  let failures = 0;

  /** Logs a failed step; the message names the call and the status, never the key. */
  const failed = (what: string, error: unknown) => {
    if (!isStopped) deps.logger.warn({ err: error instanceof Error ? error.message : String(error) }, what);
    return false;
  };

  // Reconciliation runs even while registration fails (a refused URL, say): polling alone still
  // brings every payment in. Either failing brings the next pass forward, with backoff.
  const tick = async () => {
    let isHealthy = true;
    if (!isConnected) {
      isHealthy = await connectPaymentService(deps).then(
        (outcome) => {
          isConnected = true;
          deps.logger.info(
            { outcome, url: billingWebhookUrl(deps.config) },
            "payment webhook endpoint ready",
          );
          return true;
        },
        (error: unknown) => failed("payment webhook endpoint not registered yet; will retry", error),
      );
    }
    const isReconciled = await reconcilePayments(deps).then(
      () => true,
      (error: unknown) => failed("payment reconciliation failed; will retry", error),
    );
    failures = isHealthy && isReconciled ? 0 : failures + 1;
  };
  const job = periodicJob({
    run: tick,
    everyMs: intervalMs,
    nextDelayMs: () =>
      failures === 0 ? intervalMs : Math.min(FIRST_RETRY_MS * 2 ** (failures - 1), intervalMs, 60_000),
    onError: (error) => failed("payment reconciliation failed; will retry", error),
  });

  return {
    start() {
      if (!deps.config.paymentsSecretKey) {
        deps.logger.info("PAYMENTS_SECRET_KEY is not set: buying credits is off");
        return;
      }
      isStopped = false;
      job.start();
    },
    async stop() {
      isStopped = true;
      await job.stop();
    },
  };
}
