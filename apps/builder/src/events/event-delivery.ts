import type { DeliveryEngine } from "@app/webhooks";
import type { Deps } from "../deps.ts";
import { createBuilderDeliveryEngine } from "./delivery-engine.ts";
import { startWebhookRetention } from "./delivery-retention.ts";
import { DEFAULT_EVENT_DELIVERY } from "./delivery-settings.ts";
import type { DeliveryNotifier } from "./emit-event.ts";

export interface EventDelivery extends DeliveryNotifier {
  engine: DeliveryEngine;
  start(): void;
  /** Stops the engine after the attempts in flight are recorded, and the retention job. */
  stop(): Promise<void>;
}

/**
 * The delivery side of the builder's events: the engine that signs and POSTs them, woken after each
 * commit, and the 90-day retention job of attempt records.
 *
 * @example const delivery = createEventDelivery(deps); delivery.start(); … delivery.wake(); … await delivery.stop();
 */
export function createEventDelivery(
  deps: Pick<Deps, "db" | "clock" | "config" | "logger" | "eventDelivery">,
): EventDelivery {
  const settings = { ...DEFAULT_EVENT_DELIVERY, ...deps.eventDelivery };
  const engine = createBuilderDeliveryEngine(deps, { pollIntervalMs: settings.pollIntervalMs });
  let retention: ReturnType<typeof startWebhookRetention> | undefined;
  return {
    engine,
    wake: () => engine.wake(),
    start() {
      if (settings.isInline) engine.start();
      retention ??= startWebhookRetention(deps, settings.retentionIntervalMs);
    },
    async stop() {
      await retention?.stop();
      retention = undefined;
      await engine.stop();
    },
  };
}
