import { createDeliveryEngine, type DeliveryEngine, type Sender } from "@app/webhooks";
import type { Deps } from "./deps.ts";
import { PRODUCT_USER_AGENT } from "./product.ts";

/**
 * The payment service's delivery engine: the shared engine with this product's User-Agent and the
 * service's SSRF setting.
 *
 * @example const engine = createPaymentsDeliveryEngine(deps); engine.start();
 */
export function createPaymentsDeliveryEngine(
  deps: Pick<Deps, "db" | "clock" | "config" | "logger">,
  overrides: { send?: Sender; timeoutMs?: number } = {},
): DeliveryEngine {
  return createDeliveryEngine({
    db: deps.db,
    clock: deps.clock,
    userAgent: PRODUCT_USER_AGENT,
    allowPrivate: deps.config.allowPrivateWebhooks,
    concurrency: deps.config.workerConcurrency,
    pollIntervalMs: deps.config.workerPollMs,
    ...(deps.config.deliveryLeaseMs === undefined ? {} : { leaseMs: deps.config.deliveryLeaseMs }),
    ...overrides,
    onError: (error) => deps.logger.error({ err: error }, "webhook delivery engine error"),
  });
}
