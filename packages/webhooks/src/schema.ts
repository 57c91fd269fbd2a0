// Tables of the delivery engine. An app re-exports them from its own Drizzle schema so that
// drizzle-kit generates them into the app's migrations (one database per service).
import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  index,
  integer,
  jsonb,
  pgSequence,
  pgTable,
  text,
  timestamp,
} from "drizzle-orm/pg-core";

/** Tie-breaker of events written by one transaction; see `events.ts` for the ordering rule. */
export const webhookEventSeq = pgSequence("webhook_event_seq");

/** The numeric `X-Service-Delivery` ids: one per attempt, taken when the attempt is claimed. */
export const webhookAttemptIds = pgSequence("webhook_attempt_ids");

const at = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });

/** Every event ever emitted, with the exact bytes that are delivered. Kept forever. */
export const events = pgTable(
  "events",
  {
    id: text("id").primaryKey(),
    /** Whose event it is: a merchant of the payment service, a workspace of the builder. */
    ownerId: text("owner_id").notNull(),
    environment: text("environment").notNull(),
    type: text("type").notNull(),
    /** The writing transaction's id (`pg_current_xact_id()`); with `seq` it orders the list. */
    xid: bigint("xid", { mode: "number" }).notNull(),
    seq: bigint("seq", { mode: "number" }).notNull(),
    createdAt: at("created_at").notNull(),
    body: text("body").notNull(),
  },
  (table) => [
    index("events_owner_order_idx").on(table.ownerId, table.environment, table.xid, table.seq),
    index("events_owner_type_order_idx").on(
      table.ownerId,
      table.environment,
      table.type,
      table.xid,
      table.seq,
    ),
  ],
);

export const webhookEndpoints = pgTable(
  "webhook_endpoints",
  {
    id: text("id").primaryKey(),
    ownerId: text("owner_id").notNull(),
    environment: text("environment").notNull(),
    url: text("url").notNull(),
    description: text("description").notNull().default(""),
    enabledEvents: jsonb("enabled_events").$type<string[]>().notNull(),
    isDisabled: boolean("disabled").notNull().default(false),
    /** Needed in clear to sign; never returned by the API after creation or rotation. */
    secret: text("secret").notNull(),
    previousSecret: text("previous_secret"),
    previousSecretExpiresAt: at("previous_secret_expires_at"),
    createdAt: at("created_at").notNull(),
    updatedAt: at("updated_at").notNull(),
  },
  (table) => [index("webhook_endpoints_owner_idx").on(table.ownerId, table.environment, table.id)],
);

export type DeliveryStatus = "pending" | "retrying" | "delivered" | "failed";

export const webhookDeliveries = pgTable(
  "webhook_deliveries",
  {
    id: text("id").primaryKey(),
    ownerId: text("owner_id").notNull(),
    environment: text("environment").notNull(),
    eventId: text("event_id")
      .notNull()
      .references(() => events.id),
    eventType: text("event_type").notNull(),
    endpointId: text("endpoint_id")
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: "cascade" }),
    status: text("status").$type<DeliveryStatus>().notNull(),
    /** Failed attempts in the current series (a replay starts a new series at 0). */
    failureCount: integer("failure_count").notNull().default(0),
    attemptCount: integer("attempt_count").notNull().default(0),
    /** When a pending delivery is due; while claimed, when the claim's lease runs out. */
    nextAttemptAt: at("next_attempt_at"),
    leaseToken: text("lease_token"),
    lastAttemptAt: at("last_attempt_at"),
    lastResponseStatus: integer("last_response_status"),
    lastError: text("last_error"),
    replayCount: integer("replay_count").notNull().default(0),
    createdAt: at("created_at").notNull(),
    updatedAt: at("updated_at").notNull(),
  },
  (table) => [
    index("webhook_deliveries_due_idx")
      .on(table.nextAttemptAt)
      .where(sql`${table.status} in ('pending', 'retrying')`),
    index("webhook_deliveries_owner_idx").on(table.ownerId, table.environment, table.id),
    index("webhook_deliveries_endpoint_idx").on(table.endpointId, table.status),
    index("webhook_deliveries_event_idx").on(table.eventId),
    index("webhook_deliveries_created_idx").on(table.createdAt),
  ],
);

export const webhookAttempts = pgTable(
  "webhook_attempts",
  {
    /** The `X-Service-Delivery` header value of this attempt. */
    id: bigint("id", { mode: "number" }).primaryKey(),
    deliveryId: text("delivery_id")
      .notNull()
      .references(() => webhookDeliveries.id, { onDelete: "cascade" }),
    ownerId: text("owner_id").notNull(),
    endpointId: text("endpoint_id").notNull(),
    eventId: text("event_id").notNull(),
    attemptedAt: at("attempted_at").notNull(),
    durationMs: integer("duration_ms").notNull(),
    url: text("url").notNull(),
    requestHeaders: jsonb("request_headers").$type<Record<string, string>>().notNull(),
    responseStatus: integer("response_status"),
    /** The first 4 KiB of the answer. */
    responseBody: text("response_body"),
    error: text("error"),
    isSuccess: boolean("success").notNull(),
  },
  (table) => [
    index("webhook_attempts_delivery_idx").on(table.deliveryId, table.id),
    index("webhook_attempts_attempted_idx").on(table.attemptedAt),
  ],
);
