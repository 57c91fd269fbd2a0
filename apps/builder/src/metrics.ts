// The builder's /metrics: the shared HTTP and process series plus its queues, read from the
// database (and the sandbox's scheduler) when Prometheus scrapes, so every process reports the
// same shared queues and nothing is counted twice in memory.
import { createServiceMetrics, poolGauge, type ServiceMetrics } from "@app/observability";
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
  metrics.queue({
    name: "webhook_deliveries",
    help: {
      depth:
        "Event webhook deliveries waiting (pending, incl. retrying) and parked (failed after every retry).",
      oldestAge: "Age of the oldest pending and parked event webhook delivery.",
    },
    labelNames: ["state"],
    read: async () =>
      (await deliveryQueue(db, clock.now())).map(({ state, ...queue }) => ({ labels: { state }, ...queue })),
  });
  metrics.queue({
    name: "ingestion_backlog",
    help: {
      depth: "Knowledge-base documents whose ingestion has not finished (queued, parsing, embedding).",
      oldestAge: "Age of the oldest unfinished knowledge-base document.",
    },
    read: async () => [{ labels: {}, ...(await ingestionBacklog(db, clock.now())) }],
  });
  metrics.queue({
    name: "generation_polling",
    help: {
      depth: "Generations in flight at Replicate (starting, processing) that the worker polls.",
      oldestAge: "Age of the oldest generation still in flight.",
    },
    read: async () => [{ labels: {}, ...(await pollingBacklog(db, clock.now())) }],
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
  metrics.gauge(poolGauge(db));
  return metrics;
}
