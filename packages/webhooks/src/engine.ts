import { randomBytes } from "node:crypto";
import { type Clock, pollLoop, unixSeconds } from "@app/core";
import { queryRows } from "@app/db";
import { SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import { type SQL, sql } from "drizzle-orm";
import type { WebhooksDb } from "./db.ts";
import { nextAttemptAfterFailure } from "./retry.ts";
import { webhookAttempts } from "./schema.ts";
import { DELIVERY_TIMEOUT_MS, httpSender, type Sender } from "./sender.ts";
import { signatureHeader } from "./signature.ts";

export interface DeliveryEngineOptions {
  db: WebhooksDb;
  clock: Clock;
  /** `<Product>/<version>`, sent as the User-Agent of every delivery. */
  userAgent: string;
  /** How POSTs go out; defaults to `httpSender` with the SSRF guard. */
  send?: Sender;
  /** Whether deliveries may reach private addresses (checked again at connect time). */
  allowPrivate?: boolean;
  /** Fixed at 10 s by the seed; only tests shorten it. */
  timeoutMs?: number;
  /** How long a claim lasts before another worker may take the delivery again. */
  leaseMs?: number;
  /** Deliveries in flight at once in this process. */
  concurrency?: number;
  /** How often an idle worker looks for due deliveries (`wake()` short-cuts it). */
  pollIntervalMs?: number;
  onError?: (error: unknown) => void;
}

export interface DeliveryEngine {
  /** Attempts everything due now (by the engine's clock) and returns how many attempts were made. */
  runDue(): Promise<number>;
  /** Keeps delivering in the background until `stop()`. */
  start(): void;
  /** Lets a sleeping worker look for work at once (after committing an event). */
  wake(): void;
  stop(): Promise<void>;
}

interface Claimed {
  /** When the POST goes out: its signature's timestamp and its attempt record's time. */
  attemptedAt: Date;
  requestHeaders: Record<string, string>;
  deliveryId: string;
  leaseToken: string;
  attemptId: number;
  failureCount: number;
  eventId: string;
  eventType: string;
  ownerId: string;
  body: string;
  endpointId: string;
  url: string;
  secrets: string[];
  isEndpointDisabled: boolean;
}

interface Outcome {
  claimed: Claimed;
  durationMs: number;
  responseStatus: number | null;
  responseBody: string | null;
  error: string | null;
  isSuccess: boolean;
}

const tracer = trace.getTracer("@app/webhooks");

/**
 * The error an attempt record carries from just before its POST until its outcome is written. One
 * that keeps it was sent by a process that stopped (killed, crashed) before the answer: the
 * receiver may have it, and the lease brings the delivery round again under a new attempt id.
 */
export const IN_FLIGHT_ERROR =
  "in flight: no outcome recorded (the sending process stopped before the answer)";

/**
 * The durable delivery engine. Deliveries are rows written with their event (`recordEvent`);
 * any number of engines, in any number of processes, claim due rows with
 * `FOR UPDATE SKIP LOCKED` and a lease (the row's `next_attempt_at` moves to the lease's end and
 * a token marks the claim), POST them, and record the outcome only if their claim still holds.
 * A worker that dies loses nothing: its leases run out and the rows are due again.
 *
 * @example
 * const engine = createDeliveryEngine({ db, clock: systemClock, userAgent: "PaymentService/0.1.0" });
 * engine.start(); // … engine.wake() after each event; await engine.stop() on shutdown
 */
export function createDeliveryEngine(options: DeliveryEngineOptions): DeliveryEngine {
  const db = options.db;
  const clock = options.clock;
  const send = options.send ?? httpSender({ allowPrivate: options.allowPrivate ?? false });
  const timeoutMs = options.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  const leaseMs = options.leaseMs ?? Math.max(30_000, timeoutMs * 3);
  const concurrency = options.concurrency ?? 64;
  const pollIntervalMs = options.pollIntervalMs ?? 250;
  const onError = options.onError ?? (() => {});

  let inFlight = 0;
  const settled = new Set<Promise<void>>();
  let slotFreed: (() => void) | undefined;
  const pending: Outcome[] = [];
  let flushing: Promise<void> | undefined;

  async function claim(limit: number): Promise<Claimed[]> {
    const now = clock.now();
    const leaseToken = randomBytes(9).toString("base64url");
    const leaseUntil = new Date(now.getTime() + leaseMs);
    const rows = await queryRows<{
      delivery_id: string;
      attempt_id: string;
      failure_count: number;
      event_id: string;
      event_type: string;
      owner_id: string;
      body: string;
      endpoint_id: string;
      url: string;
      secret: string;
      previous_secret: string | null;
      previous_valid: boolean;
      disabled: boolean;
    }>(
      db,
      sql`
        with due as (
          select id from webhook_deliveries
          where status in ('pending', 'retrying') and next_attempt_at <= ${now.toISOString()}::timestamptz
          order by next_attempt_at
          limit ${limit}
          for update skip locked
        )
        update webhook_deliveries d
        set next_attempt_at = ${leaseUntil.toISOString()}::timestamptz, lease_token = ${leaseToken}
        from due, events e, webhook_endpoints w
        where d.id = due.id and e.id = d.event_id and w.id = d.endpoint_id
        returning d.id as delivery_id, nextval('webhook_attempt_ids')::text as attempt_id,
          d.failure_count, d.event_id, d.event_type, d.owner_id, e.body, d.endpoint_id, w.url, w.secret,
          w.previous_secret,
          (w.previous_secret_expires_at is not null
            and w.previous_secret_expires_at > ${now.toISOString()}::timestamptz) as previous_valid,
          w.disabled`,
      { isPrepared: true },
    );
    const claimed = rows.map((row) => {
      const secrets =
        row.previous_valid && row.previous_secret ? [row.secret, row.previous_secret] : [row.secret];
      return {
        // Signed afresh with the time of this attempt, so a 24 h retry still passes a 300 s tolerance.
        attemptedAt: now,
        requestHeaders: {
          "content-type": "application/json",
          "user-agent": options.userAgent,
          "x-service-signature": signatureHeader(secrets, row.body, unixSeconds(now)),
          "x-service-event": row.event_type,
          "x-service-delivery": row.attempt_id,
        },
        deliveryId: row.delivery_id,
        leaseToken,
        attemptId: Number(row.attempt_id),
        failureCount: Number(row.failure_count),
        eventId: row.event_id,
        eventType: row.event_type,
        ownerId: row.owner_id,
        body: row.body,
        endpointId: row.endpoint_id,
        url: row.url,
        secrets,
        isEndpointDisabled: row.disabled,
      };
    });
    // Recorded before the POSTs go out: a process killed while they are in flight leaves each one in
    // the attempt log (marked in flight), where the receiver may have seen it, instead of nothing.
    if (claimed.length > 0) {
      await db.insert(webhookAttempts).values(
        claimed.map((attempt) => ({
          ...attemptRecord(attempt),
          durationMs: 0,
          responseStatus: null,
          responseBody: null,
          error: IN_FLIGHT_ERROR,
          isSuccess: false,
        })),
      );
    }
    return claimed;
  }

  /** Each attempt is a span of its own (traces are off unless the service set up a tracer provider). */
  function attempt(claimed: Claimed): Promise<Outcome> {
    const attributes = {
      "webhook.delivery.id": claimed.deliveryId,
      "webhook.event.id": claimed.eventId,
      "webhook.event.type": claimed.eventType,
      "webhook.endpoint.id": claimed.endpointId,
      "webhook.owner.id": claimed.ownerId,
      "webhook.attempt.id": claimed.attemptId,
    };
    return tracer.startActiveSpan("webhook.delivery", { kind: SpanKind.CLIENT, attributes }, async (span) => {
      try {
        const outcome = await attemptOnce(claimed);
        if (outcome.responseStatus !== null)
          span.setAttribute("http.response.status_code", outcome.responseStatus);
        if (!outcome.isSuccess) span.setStatus({ code: SpanStatusCode.ERROR, message: outcome.error ?? "" });
        return outcome;
      } finally {
        span.end();
      }
    });
  }

  async function attemptOnce(claimed: Claimed): Promise<Outcome> {
    const base = { claimed };
    if (claimed.isEndpointDisabled) {
      return {
        ...base,
        durationMs: 0,
        responseStatus: null,
        responseBody: null,
        error: "endpoint disabled",
        isSuccess: false,
      };
    }
    const started = performance.now();
    try {
      const response = await send({
        url: claimed.url,
        headers: claimed.requestHeaders,
        body: claimed.body,
        timeoutMs,
      });
      return {
        ...base,
        durationMs: Math.round(performance.now() - started),
        responseStatus: response.status,
        responseBody: response.body,
        error: null,
        isSuccess: response.status >= 200 && response.status < 300,
      };
    } catch (error) {
      return {
        ...base,
        durationMs: Math.round(performance.now() - started),
        responseStatus: null,
        responseBody: null,
        error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
        isSuccess: false,
      };
    }
  }

  /** Writes outcomes in one transaction; a claim that was lost (lease ran out) only adds its attempt record. */
  async function record(outcomes: Outcome[]): Promise<void> {
    const values: SQL[] = outcomes.map((outcome) => {
      const failureCount = outcome.isSuccess
        ? outcome.claimed.failureCount
        : outcome.claimed.failureCount + 1;
      // A disabled endpoint gets no retries: the delivery is parked at once and can be replayed.
      const next =
        outcome.isSuccess || outcome.claimed.isEndpointDisabled
          ? null
          : nextAttemptAfterFailure(failureCount, outcome.claimed.attemptedAt);
      const status = outcome.isSuccess ? "delivered" : next ? "retrying" : "failed";
      return sql`(${outcome.claimed.deliveryId}, ${outcome.claimed.leaseToken}, ${status}, ${failureCount}::int,
        ${next ? next.toISOString() : null}::timestamptz, ${outcome.claimed.attemptedAt.toISOString()}::timestamptz,
        ${outcome.responseStatus}::int, ${outcome.error})`;
    });
    await db.transaction(async (tx) => {
      // The in-flight records written at claim time take their outcome (inserted if that write failed).
      await tx
        .insert(webhookAttempts)
        .values(
          outcomes.map((outcome) => ({
            ...attemptRecord(outcome.claimed),
            durationMs: outcome.durationMs,
            responseStatus: outcome.responseStatus,
            responseBody: outcome.responseBody,
            error: outcome.error,
            isSuccess: outcome.isSuccess,
          })),
        )
        .onConflictDoUpdate({
          target: webhookAttempts.id,
          set: {
            durationMs: sql`excluded.duration_ms`,
            responseStatus: sql`excluded.response_status`,
            responseBody: sql`excluded.response_body`,
            error: sql`excluded.error`,
            isSuccess: sql`excluded.success`,
          },
        });
      await tx.execute(sql`
        update webhook_deliveries d set
          status = v.status, failure_count = v.failure_count, attempt_count = d.attempt_count + 1,
          next_attempt_at = v.next_at, lease_token = null, last_attempt_at = v.attempted_at,
          last_response_status = v.response_status, last_error = v.error, updated_at = v.attempted_at
        from (values ${sql.join(values, sql`, `)}) as v(id, token, status, failure_count, next_at, attempted_at, response_status, error)
        where d.id = v.id and d.lease_token = v.token`);
    });
  }

  /** Batches outcomes: while one write runs, the next ones gather, so busy workers write fewer, larger transactions. */
  function enqueueOutcome(outcome: Outcome): Promise<void> {
    pending.push(outcome);
    if (!flushing) {
      flushing = (async () => {
        try {
          while (pending.length > 0) {
            const batch = pending.splice(0, 500);
            try {
              await record(batch);
            } catch (error) {
              // Unrecorded outcomes are not lost work: their leases run out and they are attempted again.
              onError(error);
            }
          }
        } finally {
          flushing = undefined;
        }
      })();
    }
    return flushing;
  }

  function dispatch(claimed: Claimed): void {
    inFlight += 1;
    const done: Promise<void> = attempt(claimed)
      .then((outcome) => enqueueOutcome(outcome))
      .catch(onError)
      .finally(() => {
        inFlight -= 1;
        settled.delete(done);
        slotFreed?.();
      });
    settled.add(done);
  }

  async function drain(): Promise<void> {
    while (settled.size > 0) await Promise.all([...settled]);
    if (flushing) await flushing;
  }

  async function runDue(): Promise<number> {
    let attempts = 0;
    for (;;) {
      const batch = await claim(concurrency);
      if (batch.length === 0) break;
      attempts += batch.length;
      for (const claimed of batch) dispatch(claimed);
      await drain();
    }
    return attempts;
  }

  /** One round: wait for half the slots, then claim what is due into the free ones. */
  async function fillSlots(): Promise<"busy" | "idle"> {
    // Waiting for half the slots to free up before claiming again: claiming one row per finished
    // delivery would cost a query per delivery under load.
    if (inFlight >= concurrency || (inFlight > 0 && concurrency - inFlight < Math.ceil(concurrency / 2))) {
      await new Promise<void>((resolve) => {
        slotFreed = () => {
          slotFreed = undefined;
          resolve();
        };
      });
      return "busy";
    }
    const batch = await claim(concurrency - inFlight);
    for (const claimed of batch) dispatch(claimed);
    return batch.length === 0 ? "idle" : "busy";
  }

  const loop = pollLoop({ work: fillSlots, minIdleMs: pollIntervalMs, onError });

  return {
    runDue,
    start: loop.start,
    wake: loop.wake,
    async stop() {
      const stopped = loop.stop();
      slotFreed?.();
      await stopped;
      await drain();
    },
  };
}

/** The columns of an attempt record that are known before its POST goes out. */
function attemptRecord(claimed: Claimed) {
  return {
    id: claimed.attemptId,
    deliveryId: claimed.deliveryId,
    ownerId: claimed.ownerId,
    endpointId: claimed.endpointId,
    eventId: claimed.eventId,
    attemptedAt: claimed.attemptedAt,
    url: claimed.url,
    requestHeaders: claimed.requestHeaders,
  };
}
