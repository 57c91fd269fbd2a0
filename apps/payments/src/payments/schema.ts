import { sql } from "drizzle-orm";
import { bigint, index, jsonb, pgTable, text, timestamp } from "drizzle-orm/pg-core";

export type PaymentStatus = "pending" | "processing" | "succeeded" | "failed" | "expired" | "refunded";

export const payments = pgTable(
  "payments",
  {
    id: text("id").primaryKey(),
    merchantId: text("merchant_id").notNull(),
    environment: text("environment").notNull(),
    status: text("status").$type<PaymentStatus>().notNull(),
    amount: bigint("amount", { mode: "bigint" }).notNull(),
    currency: text("currency").notNull(),
    method: text("method").notNull(),
    provider: text("provider").notNull(),
    feeAmount: bigint("fee_amount", { mode: "bigint" }).notNull(),
    netAmount: bigint("net_amount", { mode: "bigint" }).notNull(),
    amountRefunded: bigint("amount_refunded", { mode: "bigint" }).notNull().default(sql`0`),
    description: text("description"),
    /** Where the checkout page sends the customer back; the merchant's own URL. */
    returnUrl: text("return_url"),
    metadata: jsonb("metadata").$type<Record<string, string>>().notNull().default({}),
    failureReason: text("failure_reason"),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull(),
  },
  (table) => [
    index("payments_merchant_idx").on(table.merchantId, table.environment, table.id),
    index("payments_expiry_idx").on(table.status, table.expiresAt),
  ],
);

export type PaymentRow = typeof payments.$inferSelect;
