// The payment service's /metrics: the shared HTTP and process series plus its webhook delivery
// queue and database pool, read when Prometheus scrapes.
import { createServiceMetrics, poolGauge, type ServiceMetrics } from "@app/observability";
import { deliveryQueue } from "@app/webhooks";
import type { Deps } from "./deps.ts";

/**
 * @example const metrics = paymentsMetrics(deps); app.use(metrics.middleware); app.get("/metrics", metrics.handler);
 */
export function paymentsMetrics(deps: Deps): ServiceMetrics {
  const { db, clock } = deps;
  const metrics = createServiceMetrics({ token: deps.config.metricsToken });
  metrics.queue({
    name: "webhook_deliveries",
    help: {
      depth: "Webhook deliveries waiting (pending, incl. retrying) and parked (failed after every retry).",
      oldestAge: "Age of the oldest pending and parked webhook delivery.",
    },
    labelNames: ["state"],
    read: async () =>
      (await deliveryQueue(db, clock.now())).map(({ state, ...queue }) => ({ labels: { state }, ...queue })),
  });
  metrics.gauge(poolGauge(db));
  return metrics;
}
