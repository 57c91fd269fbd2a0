import { type Clock, newId, unixSeconds } from "@app/core";
import { queryRows } from "@app/db";
import { and, asc, desc, eq, type SQL, sql } from "drizzle-orm";
import type { WebhooksDb } from "./db.ts";
import { events } from "./schema.ts";

/*
 * Ordering. Events are written by concurrent transactions, and a poller stores the highest id it
 * applied (the seed's reconciliation routine). Ids taken from a clock or a sequence are assigned
 * before commit, so a transaction holding a lower id can commit after a poller already went past it.
 *
 * We order events by the writing transaction's id (`pg_current_xact_id()`, then a sequence as the
 * tie-breaker inside one transaction), encode that pair into the event id so ids sort the same way,
 * and list only events whose transaction id is below the oldest transaction still running
 * (`pg_snapshot_xmin(pg_current_snapshot())`). Every transaction below that horizon has finished,
 * and transaction ids are handed out in increasing order, so anything that commits later gets a
 * larger id than everything a poller has already seen: nothing can be skipped.
 *
 * Chosen over "a single relay assigns the public sequence after commit" because the id of an event
 * must be known in its own transaction (it is in the body we store and deliver), and because it
 * needs no extra process. On PGlite (one connection, transactions serialised) the horizon is simply
 * "everything committed", so the same query is correct there too. The cost: an event stays out of
 * the list while any older transaction in the cluster is still open (a long transaction delays the
 * list; it never loses events).
 */

const CROCKFORD = "0123456789abcdefghjkmnpqrstvwxyz";
const PART_LENGTH = 13; // 13 base32 digits hold 64 bits

function encodePart(value: bigint): string {
  let out = "";
  let rest = value;
  for (let i = 0; i < PART_LENGTH; i++) {
    out = CROCKFORD[Number(rest & 31n)] + out;
    rest >>= 5n;
  }
  return out;
}

/**
 * The event id for a (transaction id, sequence) pair: `evt_` and 26 characters that sort like the pair.
 * Not `newId`: an event id must sort by visibility, which time-based ids cannot promise.
 *
 * @example eventIdFor(742n, 1n) // "evt_00000000000n60000000000001"
 */
export function eventIdFor(xid: bigint, seq: bigint): string {
  return `evt_${encodePart(xid)}${encodePart(seq)}`;
}

export interface EventEnvelope<T = unknown> {
  id: string;
  object: "event";
  type: string;
  environment: string;
  created: number;
  data: { object: T };
}

export interface RecordedEvent {
  id: string;
  type: string;
  body: string;
  deliveryCount: number;
}

/**
 * Base32 digits of a bigint SQL expression, the same alphabet and width as the JavaScript side
 * (`eventIdFor`, `newId`): the id of an event depends on its transaction, so it is made in SQL.
 */
function base32Sql(expression: string, digits: number): string {
  return `(select string_agg(substr('${CROCKFORD}', ((${expression} >> (5 * (${digits - 1} - i))) & 31)::int + 1, 1), '' order by i)
    from generate_series(0, ${digits - 1}) as i)`;
}

/** Digits of a delivery id given by its endpoint's rank, after a shared random stem. */
const DELIVERY_RANK_DIGITS = 3;

/*
 * The statement of `recordEvent` after its leading CTEs. Its text is fixed, so it is written once:
 * building a long statement out of fragments on every event cost more than running it.
 * Parameters: owner, environment, type, created at, the body without its id, the type as a JSON
 * array, the delivery id stem.
 */
const RECORD_EVENT_PARTS = [
  `input as (select `,
  `::text as owner_id, `,
  `::text as environment, `,
  `::text as type, `,
  `::timestamptz as at, `,
  `::text as rest, `,
  `::jsonb as types, `,
  `::text as stem
  ), position as (
    select pg_current_xact_id()::text::bigint as xid, nextval('webhook_event_seq') as seq
  ), inserted_event as (
    insert into events (id, owner_id, environment, type, xid, seq, created_at, body)
    select p.id, input.owner_id, input.environment, input.type, p.xid, p.seq, input.at,
      '{"id":"' || p.id || '",' || substr(input.rest, 2)
    from input, (select xid, seq, 'evt_' || ${base32Sql("xid", 13)} || ${base32Sql("seq", 13)} as id
      from position) as p
    returning id
  ), targets as (
    select w.id, row_number() over (order by w.id) as rank from webhook_endpoints w, input
    where w.owner_id = input.owner_id and w.environment = input.environment and not w.disabled
      and (w.enabled_events @> input.types or w.enabled_events @> '["*"]'::jsonb)
  ), scheduled as (
    insert into webhook_deliveries (id, owner_id, environment, event_id, event_type, endpoint_id, status,
      next_attempt_at, created_at, updated_at)
    select input.stem || ${base32Sql("t.rank", DELIVERY_RANK_DIGITS)}, input.owner_id, input.environment, e.id,
      input.type, t.id, 'pending', input.at, input.at, input.at
    from input, targets t, inserted_event e
    returning 1
  )
  select e.id, (select count(*) from scheduled)::int as delivery_count from inserted_event e`,
].map((text) => sql.raw(text));

/**
 * Stores an event and schedules its deliveries to every enabled endpoint of the owner subscribed
 * to its type, in one statement. Call it with the transaction that makes the state change, so the
 * change, the event and its deliveries commit together (or not at all); wake the engine after the
 * commit. `also` adds data-modifying CTEs to the same statement: a change that needs no answer
 * rides along without a round trip of its own (with them the statement is its own transaction).
 *
 * @example
 * await db.transaction(async (tx) => {
 *   await tx.update(payments).set({ status: "succeeded" }).where(eq(payments.id, id));
 *   await recordEvent(tx, clock, { ownerId, environment: "test", type: "payment.succeeded", object: json });
 * });
 * engine.wake();
 */
export async function recordEvent(
  tx: WebhooksDb,
  clock: Clock,
  input: { ownerId: string; environment: string; type: string; object: unknown },
  also: readonly SQL[] = [],
): Promise<RecordedEvent> {
  const now = clock.now();
  // The body without its id: SQL puts the id first, as JSON.stringify of the envelope would.
  const rest = JSON.stringify({
    object: "event",
    type: input.type,
    environment: input.environment,
    created: unixSeconds(now),
    data: { object: input.object },
  } satisfies Omit<EventEnvelope, "id">);
  const values = [
    input.ownerId,
    input.environment,
    input.type,
    now.toISOString(),
    rest,
    JSON.stringify([input.type]),
    newId("wd", now.getTime()).slice(0, -DELIVERY_RANK_DIGITS),
  ];
  const chunks: SQL[] = [sql.raw("with ")];
  for (const cte of also) chunks.push(cte, sql.raw(", "));
  RECORD_EVENT_PARTS.forEach((part, i) => {
    chunks.push(part);
    if (i < values.length) chunks.push(sql`${values[i]}`);
  });
  // Prepared: parsing and planning this statement took PostgreSQL longer than running it.
  const [row] = await queryRows<{ id: string; delivery_count: number }>(tx, sql.join(chunks), {
    isPrepared: true,
  });
  if (!row) throw new Error("the event was not recorded");
  return {
    id: row.id,
    type: input.type,
    body: `{"id":"${row.id}",${rest.slice(1)}`,
    deliveryCount: row.delivery_count,
  };
}

/** Raised by `listEvents` when a cursor names no event of this owner and environment. */
export class UnknownCursorError extends Error {
  override name = "UnknownCursorError";
  constructor(readonly param: "starting_after" | "ending_before") {
    super(`No event with the id given in ${param}.`);
  }
}

export interface ListEventsQuery {
  ownerId: string;
  environment: string;
  limit: number;
  type?: string | undefined;
  startingAfter?: string | undefined;
  endingBefore?: string | undefined;
}

export interface EventPage {
  /** The stored bodies, newest first. */
  bodies: string[];
  /** Whether more events exist beyond the page in the direction of travel. */
  hasMore: boolean;
  /**
   * The id to pass again as the same cursor (`endingBefore` when none was given) to get the next
   * page in the same direction; null when `hasMore` is false.
   */
  nextCursor: string | null;
}

/**
 * A page of events, newest first, as the stored JSON bodies (so the list carries the very bytes
 * that were delivered). `startingAfter`: the `limit` events right after the cursor (newer);
 * `endingBefore`: the `limit` events right before it (older); neither: the newest. `hasMore`
 * says whether more exist beyond the page in the direction of travel.
 *
 * @example
 * const page = await listEvents(db, { ownerId, environment: "test", limit: 10, startingAfter: "evt_…" });
 */
export async function listEvents(db: WebhooksDb, query: ListEventsQuery): Promise<EventPage> {
  const scope: SQL[] = [eq(events.ownerId, query.ownerId), eq(events.environment, query.environment)];
  if (query.type) scope.push(eq(events.type, query.type));
  scope.push(sql`${events.xid} < pg_snapshot_xmin(pg_current_snapshot())::text::bigint`);

  const cursorId = query.startingAfter ?? query.endingBefore;
  let isForward = false;
  if (cursorId !== undefined) {
    const [cursor] = await db
      .select({ xid: events.xid, seq: events.seq })
      .from(events)
      .where(
        and(
          eq(events.id, cursorId),
          eq(events.ownerId, query.ownerId),
          eq(events.environment, query.environment),
        ),
      )
      .limit(1);
    if (!cursor)
      throw new UnknownCursorError(query.startingAfter !== undefined ? "starting_after" : "ending_before");
    isForward = query.startingAfter !== undefined;
    scope.push(
      isForward
        ? sql`(${events.xid}, ${events.seq}) > (${cursor.xid}::bigint, ${cursor.seq}::bigint)`
        : sql`(${events.xid}, ${events.seq}) < (${cursor.xid}::bigint, ${cursor.seq}::bigint)`,
    );
  }
  const rows = await db
    .select({ id: events.id, body: events.body })
    .from(events)
    .where(and(...scope))
    .orderBy(...(isForward ? [asc(events.xid), asc(events.seq)] : [desc(events.xid), desc(events.seq)]))
    .limit(query.limit + 1);
  const hasMore = rows.length > query.limit;
  const page = rows.slice(0, query.limit);
  // The row furthest from the cursor, in fetch order, is where the next page starts.
  const nextCursor = hasMore ? (page.at(-1)?.id ?? null) : null;
  // Forward pages are fetched oldest first to find the events nearest the cursor, and shown newest first.
  if (isForward) page.reverse();
  return { bodies: page.map((row) => row.body), hasMore, nextCursor };
}

/**
 * The stored body of one event, exactly the bytes its webhooks carried, or undefined.
 *
 * @example const body = await findEventBody(db, { ownerId, environment: "test", id: "evt_…" });
 */
export async function findEventBody(
  db: WebhooksDb,
  query: { ownerId: string; environment: string; id: string },
): Promise<string | undefined> {
  const [row] = await db
    .select({ body: events.body })
    .from(events)
    .where(
      and(
        eq(events.id, query.id),
        eq(events.ownerId, query.ownerId),
        eq(events.environment, query.environment),
      ),
    )
    .limit(1);
  return row?.body;
}

/**
 * The list answer `{"object":"list","data":[…],"has_more":…}` assembled from stored bodies
 * without re-serialising them; with `withNextCursor`, also `"next_cursor"` (for APIs whose lists
 * all carry one).
 *
 * @example c.body(eventListJson(page), 200, { "content-type": "application/json" })
 */
export function eventListJson(
  page: Pick<EventPage, "bodies" | "hasMore"> & Partial<Pick<EventPage, "nextCursor">>,
  options: { withNextCursor?: boolean } = {},
): string {
  const head = `{"object":"list","data":[${page.bodies.join(",")}],"has_more":${page.hasMore}`;
  if (!options.withNextCursor) return `${head}}`;
  return `${head},"next_cursor":${JSON.stringify(page.nextCursor ?? null)}}`;
}
