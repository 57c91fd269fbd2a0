import type { Sample } from "./metrics.ts";

interface PgPoolLike {
  totalCount: number;
  idleCount: number;
  waitingCount: number;
  options?: { max?: number };
}

/**
 * Connection use of a Drizzle database's client, for `db_pool_connections`: node-postgres's pool
 * reports its connections (total, idle, in use) and the queries waiting for one; PGlite is one
 * in-process connection, reported as `total` 1 (its internal queue is not exposed).
 *
 * @example metrics.gauge({ name: "db_pool_connections", help: "…", labelNames: ["state"], collect: () => poolSamples(db) });
 */
export function poolSamples(db: { $client?: unknown }): Sample<"state">[] {
  const client = db.$client as Partial<PgPoolLike> | undefined;
  if (client && typeof client.totalCount === "number") {
    const pool = client as PgPoolLike;
    return [
      { labels: { state: "total" }, value: pool.totalCount },
      { labels: { state: "idle" }, value: pool.idleCount },
      { labels: { state: "in_use" }, value: pool.totalCount - pool.idleCount },
      { labels: { state: "waiting" }, value: pool.waitingCount },
      { labels: { state: "max" }, value: pool.options?.max ?? 10 },
    ];
  }
  return [
    { labels: { state: "total" }, value: 1 },
    { labels: { state: "max" }, value: 1 },
  ];
}

/**
 * The `db_pool_connections` gauge of a database handle, for `ServiceMetrics.gauge`.
 *
 * @example metrics.gauge(poolGauge(db));
 */
export function poolGauge(db: unknown) {
  return {
    name: "db_pool_connections",
    help: "Database connections by state (total, idle, in_use, waiting queries, max).",
    labelNames: ["state"] as const,
    collect: () => poolSamples(db as { $client?: unknown }),
  };
}
