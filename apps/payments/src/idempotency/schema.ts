import { integer, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";

/** First results of POSTs sent with an `Idempotency-Key`, replayed to repeats for 24 h. */
export const idempotencyKeys = pgTable(
  "idempotency_keys",
  {
    merchantId: text("merchant_id").notNull(),
    environment: text("environment").notNull(),
    key: text("key").notNull(),
    /** SHA-256 of method, path and body: the same key with another request is refused. */
    requestHash: text("request_hash").notNull(),
    /** Null while the first request is still running. */
    responseStatus: integer("response_status"),
    responseBody: text("response_body"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
  },
  (table) => [primaryKey({ columns: [table.merchantId, table.environment, table.key] })],
);
