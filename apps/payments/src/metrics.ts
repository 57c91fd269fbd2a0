// The payment service's /metrics: the shared HTTP and process series plus its webhook delivery
// queue and database pool, read when Prometheus scrapes.
import { createServiceMetrics, poolSamples, type ServiceMetrics } from "@app/observability";
import { deliveryQueue } from "@app/webhooks";
import type { Deps } from "./deps.ts";

/**
 * @example const metrics = paymentsMetrics(deps); app.use(metrics.middleware); app.get("/metrics", metrics.handler);
 */
export function paymentsMetrics(deps: Deps): ServiceMetrics {
  const { db, clock } = deps;
  const metrics = createServiceMetrics({ token: deps.config.metricsToken });
  metrics.gauge({
    name: "webhook_deliveries",
    help: "Webhook deliveries waiting (pending, incl. retrying) and parked (failed after every retry).",
    labelNames: ["state"],
    collect: async () =>
      (await deliveryQueue(db, clock.now())).map((queue) => ({
        labels: { state: queue.state },
        value: queue.count,
      })),
  });
  metrics.gauge({
    name: "webhook_deliveries_oldest_age_seconds",
    help: "Age of the oldest pending and parked webhook delivery.",
    labelNames: ["state"],
    collect: async () =>
      (await deliveryQueue(db, clock.now())).map((queue) => ({
        labels: { state: queue.state },
        value: queue.oldestAgeSeconds,
      })),
  });
  metrics.gauge({
    name: "db_pool_connections",
    help: "Database connections by state (total, idle, in_use, waiting queries, max).",
    labelNames: ["state"],
    collect: () => poolSamples(db as { $client?: unknown }),
  });
  return metrics;
}
