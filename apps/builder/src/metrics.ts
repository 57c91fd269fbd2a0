// The builder's /metrics: the shared HTTP and process series plus its queues, read from the
// database (and the sandbox's scheduler) when Prometheus scrapes, so every process reports the
// same shared queues and nothing is counted twice in memory.
import { createServiceMetrics, poolSamples, type ServiceMetrics } from "@app/observability";
import { deliveryQueue } from "@app/webhooks";
import type { Deps } from "./deps.ts";
import { pollingBacklog } from "./generation/polling-backlog.ts";
import { ingestionBacklog } from "./knowledge/ingestion-backlog.ts";

/**
 * @example const metrics = builderMetrics(deps); app.use(metrics.middleware); app.get("/metrics", metrics.handler);
 */
export function builderMetrics(deps: Deps): ServiceMetrics {
  const { db, clock } = deps;
  const metrics = createServiceMetrics({ token: deps.config.metricsToken });
  metrics.gauge({
    name: "webhook_deliveries",
    help: "Event webhook deliveries waiting (pending, incl. retrying) and parked (failed after every retry).",
    labelNames: ["state"],
    collect: async () =>
      (await deliveryQueue(db, clock.now())).map((queue) => ({
        labels: { state: queue.state },
        value: queue.count,
      })),
  });
  metrics.gauge({
    name: "webhook_deliveries_oldest_age_seconds",
    help: "Age of the oldest pending and parked event webhook delivery.",
    labelNames: ["state"],
    collect: async () =>
      (await deliveryQueue(db, clock.now())).map((queue) => ({
        labels: { state: queue.state },
        value: queue.oldestAgeSeconds,
      })),
  });
  metrics.gauge({
    name: "ingestion_backlog",
    help: "Knowledge-base documents whose ingestion has not finished (queued, parsing, embedding).",
    collect: async () => [{ labels: {}, value: (await ingestionBacklog(db, clock.now())).count }],
  });
  metrics.gauge({
    name: "ingestion_backlog_oldest_age_seconds",
    help: "Age of the oldest unfinished knowledge-base document.",
    collect: async () => [{ labels: {}, value: (await ingestionBacklog(db, clock.now())).oldestAgeSeconds }],
  });
  metrics.gauge({
    name: "generation_polling",
    help: "Generations in flight at Replicate (starting, processing) that the worker polls.",
    collect: async () => [{ labels: {}, value: (await pollingBacklog(db, clock.now())).count }],
  });
  metrics.gauge({
    name: "generation_polling_oldest_age_seconds",
    help: "Age of the oldest generation still in flight.",
    collect: async () => [{ labels: {}, value: (await pollingBacklog(db, clock.now())).oldestAgeSeconds }],
  });
  metrics.gauge({
    name: "sandbox_runs",
    help: "Sandbox runs of this process: running (active) and waiting for a slot (queued).",
    labelNames: ["state"],
    collect: () => {
      const stats = deps.sandbox?.stats();
      if (!stats) return [];
      return [
        { labels: { state: "active" }, value: stats.active },
        { labels: { state: "queued" }, value: stats.queued },
      ];
    },
  });
  metrics.gauge({
    name: "db_pool_connections",
    help: "Database connections by state (total, idle, in_use, waiting queries, max).",
    labelNames: ["state"],
    collect: () => poolSamples(db as { $client?: unknown }),
  });
  return metrics;
}
