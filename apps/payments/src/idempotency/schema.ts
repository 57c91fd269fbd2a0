import { integer, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";

/** First results of POSTs sent with an `Idempotency-Key`, replayed to repeats for 24 h. */
export const idempotencyKeys = pgTable(
  "idempotency_keys",
  {
    merchantId: text("merchant_id").notNull(),
    environment: text("environment").notNull(),
    key: text("key").notNull(),
    /** SHA-256 of method, path and canonical body (`hashRequest`): the same key with another request is refused. */
    requestHash: text("request_hash").notNull(),
    /** Null while the first request is still running. */
    responseStatus: integer("response_status"),
    responseBody: text("response_body"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
    /**
     * When the request now running claimed the key. A claim older than the lock timeout belongs to a
     * process that died: a retry takes it over instead of answering 409 for 24 h.
     */
    lockedAt: timestamp("locked_at", { withTimezone: true }).notNull().defaultNow(),
    /**
     * The id of what the request created, written in the same transaction as the object: a retry
     * that takes over an abandoned claim answers with that object instead of creating a second one.
     */
    recoveryPoint: text("recovery_point"),
  },
  (table) => [primaryKey({ columns: [table.merchantId, table.environment, table.key] })],
);

/** The key the running request holds; use-cases write their recovery point under it. */
export interface IdempotencyClaim {
  merchantId: string;
  environment: string;
  key: string;
  /** The claim's `locked_at`: a retry that takes the key over sets a new one, so this request's writes stop matching. */
  lockedAt: Date;
  /** After this instant the request may no longer commit (`IDEMPOTENCY_REQUEST_DEADLINE_MS` after the claim). */
  deadline: Date;
}
