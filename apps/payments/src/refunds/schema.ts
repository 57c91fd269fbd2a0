import { bigint, index, pgTable, text, timestamp } from "drizzle-orm/pg-core";

export type RefundStatus = "pending" | "succeeded" | "failed";

export const refunds = pgTable(
  "refunds",
  {
    id: text("id").primaryKey(),
    merchantId: text("merchant_id").notNull(),
    environment: text("environment").notNull(),
    paymentId: text("payment_id").notNull(),
    amount: bigint("amount", { mode: "bigint" }).notNull(),
    currency: text("currency").notNull(),
    status: text("status").$type<RefundStatus>().notNull(),
    failureReason: text("failure_reason"),
    /** When the simulated provider settles it if no test helper did first. */
    settlesAt: timestamp("settles_at", { withTimezone: true }).notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull(),
  },
  (table) => [
    index("refunds_payment_idx").on(table.paymentId),
    index("refunds_merchant_idx").on(table.merchantId, table.environment, table.id),
    index("refunds_settle_idx").on(table.status, table.settlesAt),
  ],
);

export type RefundRow = typeof refunds.$inferSelect;
