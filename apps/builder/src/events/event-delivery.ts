import type { DeliveryEngine } from "@app/webhooks";
import type { Deps } from "../deps.ts";
import { createBuilderDeliveryEngine } from "./delivery-engine.ts";
import { startWebhookRetention } from "./delivery-retention.ts";
import type { DeliveryNotifier } from "./emit-event.ts";

/** How this process delivers the builder's events; tests change them through `Deps.eventDelivery`. */
export interface EventDeliverySettings {
  /** Whether `start()` runs the delivery engine in this process (tests may drive `runDue()` themselves). */
  isInline: boolean;
  /** How often an idle engine looks for due deliveries; committed events wake it sooner. */
  pollIntervalMs: number;
  /** How often attempt records older than 90 days are pruned. */
  retentionIntervalMs: number;
}

export const DEFAULT_EVENT_DELIVERY: EventDeliverySettings = {
  isInline: true,
  // Every commit that records an event wakes this process's engine, so polling only finds
  // retries that came due (minutes apart) and work of other instances: once a second is plenty,
  // and on the embedded database each poll waits in line with the requests.
  pollIntervalMs: 1_000,
  retentionIntervalMs: 3_600_000,
};

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
