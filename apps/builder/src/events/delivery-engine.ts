import { createDeliveryEngine, type DeliveryEngine, type Sender } from "@app/webhooks";
import type { Deps } from "../deps.ts";
import { BUILDER_USER_AGENT } from "../product.ts";

/**
 * The builder's webhook delivery engine: the payment service's engine (packages/webhooks) with the
 * builder's User-Agent, and private targets reachable only with `ALLOW_PRIVATE_URLS=1`.
 *
 * @example const engine = createBuilderDeliveryEngine(deps); engine.start();
 */
export function createBuilderDeliveryEngine(
  deps: Pick<Deps, "db" | "clock" | "config" | "logger">,
  options: { pollIntervalMs?: number; send?: Sender; timeoutMs?: number } = {},
): DeliveryEngine {
  return createDeliveryEngine({
    db: deps.db,
    clock: deps.clock,
    userAgent: BUILDER_USER_AGENT,
    allowPrivate: deps.config.allowPrivateUrls,
    ...options,
    onError: (error) => deps.logger.error({ err: error }, "webhook delivery engine error"),
  });
}
