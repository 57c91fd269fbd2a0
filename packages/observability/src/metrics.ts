import { timingSafeEqual } from "node:crypto";
import { CommonErrors } from "@app/http";
import type { Context, MiddlewareHandler } from "hono";
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";

/**
 * Process-wide series: the runtime's own (event-loop lag, memory, GC) and the counters that use-cases
 * deep inside a service increment (runs, turns, tokens, credits). One process is one scrape target,
 * so they are module state; per-app series (HTTP, queues, pool) live in each `ServiceMetrics`.
 */
const processRegistry = new Registry();
collectDefaultMetrics({ register: processRegistry, eventLoopMonitoringPrecision: 20 });

/** Workflow runs that ended, by outcome (`succeeded`, `failed`, `cancelled`). */
export const workflowRunsTotal = new Counter({
  name: "workflow_runs_total",
  help: "Workflow runs that ended, by outcome.",
  labelNames: ["outcome"] as const,
  registers: [processRegistry],
});

/** Agent chat turns that ended, by outcome (`completed`, `failed`, `timeout`, `aborted`). */
export const agentTurnsTotal = new Counter({
  name: "agent_turns_total",
  help: "Agent chat turns that ended, by outcome.",
  labelNames: ["outcome"] as const,
  registers: [processRegistry],
});

/** Model tokens booked, by provider and direction (`input`, `output`). */
export const modelTokensTotal = new Counter({
  name: "model_tokens_total",
  help: "Model tokens recorded, by provider and direction.",
  labelNames: ["provider", "direction"] as const,
  registers: [processRegistry],
});

/** Credits booked as usage, by meter (`llm_tokens`, `sandbox_seconds`, `generation`, …). */
export const creditsSpentTotal = new Counter({
  name: "credits_spent_total",
  help: "Credits booked against workspaces' balances as usage, by meter.",
  labelNames: ["meter"] as const,
  registers: [processRegistry],
});

/** One sample of a gauge collected at scrape time. */
export interface Sample<L extends string> {
  labels: Partial<Record<L, string>>;
  value: number;
}

/** One queue's depth and the age of its oldest item, under some labels (a state). */
export interface QueueSample<L extends string> {
  labels: Partial<Record<L, string>>;
  count: number;
  oldestAgeSeconds: number;
}

/** Request latency buckets: 5 ms to 30 s, enough for streamed chat turns and blocking workflow runs. */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export interface ServiceMetrics {
  /** Times every request, labelled by matched route (never the raw path: paths carry ids and tokens). */
  middleware: MiddlewareHandler;
  /** `GET /metrics` in the Prometheus text format; with `token`, only for `Authorization: Bearer <token>`. */
  handler: (c: Context) => Promise<Response>;
  /**
   * A gauge whose samples are read when Prometheus scrapes (queue depths from the database). A
   * collector that fails leaves the gauge empty for that scrape and counts in `metrics_collect_errors_total`.
   */
  gauge<L extends string>(definition: {
    name: string;
    help: string;
    labelNames?: readonly L[];
    collect: () => Promise<readonly Sample<L>[]> | readonly Sample<L>[];
  }): void;
  /** A queue as two scrape-time gauges: `<name>` (its depth) and `<name>_oldest_age_seconds`. */
  queue<L extends string>(definition: {
    name: string;
    help: { depth: string; oldestAge: string };
    labelNames?: readonly L[];
    read: () => Promise<readonly QueueSample<L>[]>;
  }): void;
  /** The text a scrape answers with. */
  scrape(): Promise<string>;
}

/**
 * The metrics of one service app: its HTTP latency histogram and its scrape-time gauges, exported
 * together with the process-wide series.
 *
 * @example
 * const metrics = createServiceMetrics({ token: config.metricsToken });
 * app.use(metrics.middleware); app.get("/metrics", metrics.handler);
 */
export function createServiceMetrics(options: { token?: string | undefined } = {}): ServiceMetrics {
  const registry = new Registry();
  const latency = new Histogram({
    name: "http_request_duration_seconds",
    help: "HTTP request latency, by method, matched route and status.",
    labelNames: ["method", "route", "status"] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const collectErrors = new Counter({
    name: "metrics_collect_errors_total",
    help: "Scrape-time collectors that failed, by series.",
    labelNames: ["series"] as const,
    registers: [registry],
  });
  const expected = options.token ? Buffer.from(`Bearer ${options.token}`) : undefined;

  const scrape = async () => `${await processRegistry.metrics()}\n${await registry.metrics()}`;

  const gauge: ServiceMetrics["gauge"] = (definition) => {
    new Gauge({
      name: definition.name,
      help: definition.help,
      labelNames: definition.labelNames ?? [],
      registers: [registry],
      async collect() {
        this.reset();
        try {
          for (const sample of await definition.collect()) this.set(sample.labels, sample.value);
        } catch {
          collectErrors.inc({ series: definition.name });
        }
      },
    });
  };

  return {
    middleware: async (c, next) => {
      const started = performance.now();
      try {
        await next();
      } finally {
        // A thrown error has not been mapped to its status yet; the error handler answers 500 for it.
        const status = c.error && c.res.status < 400 ? 500 : c.res.status;
        latency.observe(
          { method: c.req.method, route: c.req.routePath, status: String(status) },
          (performance.now() - started) / 1000,
        );
      }
    },
    handler: async (c) => {
      if (expected) {
        const given = Buffer.from(c.req.header("authorization") ?? "");
        if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
          // Thrown, so the app's error handler answers in the one error shape.
          throw CommonErrors.UNAUTHENTICATED({
            message: "GET /metrics needs `Authorization: Bearer <METRICS_TOKEN>`.",
            headers: { "WWW-Authenticate": 'Bearer realm="metrics"' },
          });
        }
      }
      return c.body(await scrape(), 200, { "Content-Type": registry.contentType });
    },
    gauge,
    queue: ({ name, help, labelNames, read }) => {
      const labels = labelNames ? { labelNames } : {};
      gauge({
        name,
        help: help.depth,
        ...labels,
        collect: async () => (await read()).map((queue) => ({ labels: queue.labels, value: queue.count })),
      });
      gauge({
        name: `${name}_oldest_age_seconds`,
        help: help.oldestAge,
        ...labels,
        collect: async () =>
          (await read()).map((queue) => ({ labels: queue.labels, value: queue.oldestAgeSeconds })),
      });
    },
    scrape,
  };
}
