import { type Clock, unixSeconds } from "@app/core";
import { newestFirst, queryRows } from "@app/db";
import { and, asc, eq, gte, inArray, sql } from "drizzle-orm";
import type { WebhooksDb } from "./db.ts";
import { type DeliveryStatus, webhookAttempts, webhookDeliveries } from "./schema.ts";

/** Attempt and delivery records are kept this long (events forever). */
export const DELIVERY_RETENTION_MS = 90 * 24 * 3_600_000;

export type DeliveryRow = typeof webhookDeliveries.$inferSelect;
export type AttemptRow = typeof webhookAttempts.$inferSelect;

type Scope = { ownerId: string; environment: string };

/**
 * The API shape of a delivery, with its attempts when given.
 *
 * @example c.json(toDeliveryJson(row, attempts), 200)
 */
export function toDeliveryJson(row: DeliveryRow, attempts?: AttemptRow[]) {
  const isScheduled = row.status === "pending" || row.status === "retrying";
  return {
    id: row.id,
    object: "webhook_delivery" as const,
    endpoint: row.endpointId,
    event: row.eventId,
    event_type: row.eventType,
    status: row.status,
    attempt_count: row.attemptCount,
    failure_count: row.failureCount,
    next_attempt_at: isScheduled && row.nextAttemptAt ? unixSeconds(row.nextAttemptAt) : null,
    last_attempt_at: row.lastAttemptAt ? unixSeconds(row.lastAttemptAt) : null,
    last_response_status: row.lastResponseStatus,
    last_error: row.lastError,
    replay_count: row.replayCount,
    created: unixSeconds(row.createdAt),
    ...(attempts === undefined ? {} : { attempts: attempts.map(toAttemptJson) }),
  };
}

function toAttemptJson(row: AttemptRow) {
  return {
    id: row.id,
    object: "webhook_attempt" as const,
    created: unixSeconds(row.attemptedAt),
    url: row.url,
    duration_ms: row.durationMs,
    request_headers: row.requestHeaders,
    response_status: row.responseStatus,
    response_body: row.responseBody,
    error: row.error,
    success: row.isSuccess,
  };
}

/**
 * Deliveries of the owner, newest first, optionally by endpoint, event or status; `limit + 1` rows.
 *
 * @example const rows = await listDeliveries(db, { ownerId, environment: "test", limit: 20, status: "failed" });
 */
export function listDeliveries(
  db: WebhooksDb,
  query: Scope & {
    limit: number;
    endpointId?: string | undefined;
    eventId?: string | undefined;
    status?: DeliveryStatus | undefined;
    startingAfter?: string | undefined;
  },
): Promise<DeliveryRow[]> {
  const newest = newestFirst(webhookDeliveries.id, { limit: query.limit, cursor: query.startingAfter });
  return db
    .select()
    .from(webhookDeliveries)
    .where(
      and(
        eq(webhookDeliveries.ownerId, query.ownerId),
        eq(webhookDeliveries.environment, query.environment),
        query.endpointId ? eq(webhookDeliveries.endpointId, query.endpointId) : undefined,
        query.eventId ? eq(webhookDeliveries.eventId, query.eventId) : undefined,
        query.status ? eq(webhookDeliveries.status, query.status) : undefined,
        newest.olderThanCursor,
      ),
    )
    .orderBy(newest.order)
    .limit(newest.limit);
}

/** One delivery of the owner; with `endpointId`, only if it belongs to that endpoint. */
type DeliveryScope = Scope & { id: string; endpointId?: string | undefined };

function deliveryWhere(scope: DeliveryScope) {
  return and(
    eq(webhookDeliveries.id, scope.id),
    eq(webhookDeliveries.ownerId, scope.ownerId),
    eq(webhookDeliveries.environment, scope.environment),
    scope.endpointId === undefined ? undefined : eq(webhookDeliveries.endpointId, scope.endpointId),
  );
}

/**
 * One delivery with its attempt records (oldest first), or undefined. With `endpointId`, a delivery
 * of another endpoint is not found either (for APIs that nest deliveries under their endpoint).
 *
 * @example const found = await findDelivery(db, { ownerId, environment: "test", id: "wd_…" });
 */
export async function findDelivery(
  db: WebhooksDb,
  scope: DeliveryScope,
): Promise<{ delivery: DeliveryRow; attempts: AttemptRow[] } | undefined> {
  const [delivery] = await db.select().from(webhookDeliveries).where(deliveryWhere(scope)).limit(1);
  if (!delivery) return undefined;
  const attempts = await db
    .select()
    .from(webhookAttempts)
    .where(eq(webhookAttempts.deliveryId, delivery.id))
    .orderBy(asc(webhookAttempts.id));
  return { delivery, attempts };
}

export type ReplayResult =
  | { kind: "replayed"; delivery: DeliveryRow }
  | { kind: "not_found" }
  | { kind: "scheduled" };

/**
 * Starts a new attempt series (same event id and body, due now) for a delivery that has finished,
 * delivered or failed; one still scheduled is left alone. `endpointId` scopes it as in `findDelivery`.
 *
 * @example const result = await replayDelivery({ db, clock }, { ownerId, environment: "test", id });
 */
export async function replayDelivery(
  { db, clock }: { db: WebhooksDb; clock: Clock },
  scope: DeliveryScope,
): Promise<ReplayResult> {
  const now = clock.now();
  const [row] = await db
    .update(webhookDeliveries)
    .set(replaySet(now))
    .where(and(deliveryWhere(scope), inArray(webhookDeliveries.status, ["delivered", "failed"])))
    .returning();
  if (row) return { kind: "replayed", delivery: row };
  const existing = await findDelivery(db, scope);
  return existing ? { kind: "scheduled" } : { kind: "not_found" };
}

/**
 * Replays every failed (parked) delivery of one endpoint created since a time; returns how many.
 *
 * @example await replayFailedDeliveries({ db, clock }, { ownerId, environment: "test", endpointId, since });
 */
export async function replayFailedDeliveries(
  { db, clock }: { db: WebhooksDb; clock: Clock },
  scope: Scope & { endpointId: string; since: Date },
): Promise<number> {
  const rows = await db
    .update(webhookDeliveries)
    .set(replaySet(clock.now()))
    .where(
      and(
        eq(webhookDeliveries.ownerId, scope.ownerId),
        eq(webhookDeliveries.environment, scope.environment),
        eq(webhookDeliveries.endpointId, scope.endpointId),
        eq(webhookDeliveries.status, "failed"),
        gte(webhookDeliveries.createdAt, scope.since),
      ),
    )
    .returning({ id: webhookDeliveries.id });
  return rows.length;
}

function replaySet(now: Date) {
  return {
    status: "pending" as const,
    failureCount: 0,
    nextAttemptAt: now,
    leaseToken: null,
    replayCount: sql`${webhookDeliveries.replayCount} + 1`,
    updatedAt: now,
  };
}

/**
 * Deletes attempt records older than 90 days and finished deliveries created before then.
 * Events are never deleted. Runs in bounded batches so it never holds long locks.
 *
 * @example const pruned = await pruneDeliveryRecords({ db, clock });
 */
export async function pruneDeliveryRecords(
  { db, clock }: { db: WebhooksDb; clock: Clock },
  options: { batchSize?: number } = {},
): Promise<{ attempts: number; deliveries: number }> {
  const cutoff = new Date(clock.now().getTime() - DELIVERY_RETENTION_MS).toISOString();
  const batchSize = options.batchSize ?? 5000;
  let attempts = 0;
  let deliveries = 0;
  for (;;) {
    const removed = (
      await queryRows<{ id: string }>(
        db,
        sql`
        delete from webhook_attempts where id in (
          select id from webhook_attempts where attempted_at < ${cutoff}::timestamptz limit ${batchSize}
        ) returning id::text`,
      )
    ).length;
    attempts += removed;
    if (removed < batchSize) break;
  }
  for (;;) {
    const removed = (
      await queryRows<{ id: string }>(
        db,
        sql`
        delete from webhook_deliveries where id in (
          select id from webhook_deliveries
          where created_at < ${cutoff}::timestamptz and status in ('delivered', 'failed')
          limit ${batchSize}
        ) returning id`,
      )
    ).length;
    deliveries += removed;
    if (removed < batchSize) break;
  }
  return { attempts, deliveries };
}

/**
 * Per endpoint: deliveries by status and the share of attempts that succeeded (for dashboards).
 *
 * @example const stats = await endpointDeliveryStats(db, { ownerId, environment: "test" });
 */
export async function endpointDeliveryStats(
  db: WebhooksDb,
  scope: Scope,
): Promise<Map<string, { byStatus: Record<DeliveryStatus, number>; successRate: number | null }>> {
  const byStatus = await queryRows<{ endpoint_id: string; status: DeliveryStatus; count: string }>(
    db,
    sql`
      select endpoint_id, status, count(*)::text as count from webhook_deliveries
      where owner_id = ${scope.ownerId} and environment = ${scope.environment}
      group by endpoint_id, status`,
  );
  const attempts = await queryRows<{ endpoint_id: string; total: string; ok: string }>(
    db,
    sql`
      select endpoint_id, count(*)::text as total, count(*) filter (where success)::text as ok
      from webhook_attempts where owner_id = ${scope.ownerId}
      group by endpoint_id`,
  );
  const out = new Map<string, { byStatus: Record<DeliveryStatus, number>; successRate: number | null }>();
  const entry = (id: string) => {
    let value = out.get(id);
    if (!value) {
      value = { byStatus: { pending: 0, retrying: 0, delivered: 0, failed: 0 }, successRate: null };
      out.set(id, value);
    }
    return value;
  };
  for (const row of byStatus) entry(row.endpoint_id).byStatus[row.status] = Number(row.count);
  for (const row of attempts) {
    const total = Number(row.total);
    if (total > 0) entry(row.endpoint_id).successRate = Number(row.ok) / total;
  }
  return out;
}

/** Deliveries waiting (pending or retrying) and parked (failed after every retry), service-wide. */
export interface DeliveryQueue {
  state: "pending" | "parked";
  count: number;
  /** Seconds since the oldest of them was created; 0 when there are none. */
  oldestAgeSeconds: number;
}

/**
 * The delivery queue across all owners, for the services' `/metrics`. Parked deliveries count
 * until replayed or pruned (`DELIVERY_RETENTION_MS`). One grouped scan of the deliveries table per
 * scrape: cheap at the retained volume of one machine; scrape less often on a large PostgreSQL.
 *
 * @example const queue = await deliveryQueue(db, clock.now());
 */
export async function deliveryQueue(db: WebhooksDb, now: Date): Promise<DeliveryQueue[]> {
  const rows = await queryRows<{ state: "pending" | "parked"; count: string; oldest: Date | string | null }>(
    db,
    sql`
      select case when status = 'failed' then 'parked' else 'pending' end as state,
        count(*)::text as count, min(created_at) as oldest
      from webhook_deliveries where status in ('pending', 'retrying', 'failed')
      group by 1`,
  );
  return (["pending", "parked"] as const).map((state) => {
    const row = rows.find((candidate) => candidate.state === state);
    const oldest = row?.oldest ? new Date(row.oldest).getTime() : now.getTime();
    return {
      state,
      count: Number(row?.count ?? 0),
      oldestAgeSeconds: Math.max(0, (now.getTime() - oldest) / 1000),
    };
  });
}
