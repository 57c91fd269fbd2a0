import type { Clock } from "@app/core";
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
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  let isStopped = false;
  let isConnected = false;
  let failures = 0;

  const schedule = (delayMs: number) => {
    if (isStopped) return;
    timer = setTimeout(() => {
      running = tick();
    }, delayMs);
    timer.unref();
  };

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
    schedule(
      failures === 0 ? intervalMs : Math.min(FIRST_RETRY_MS * 2 ** (failures - 1), intervalMs, 60_000),
    );
  };

  return {
    start() {
      if (!deps.config.paymentsSecretKey) {
        deps.logger.info("PAYMENTS_SECRET_KEY is not set: buying credits is off");
        return;
      }
      isStopped = false;
      schedule(0);
    },
    async stop() {
      isStopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
