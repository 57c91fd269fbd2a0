import { bigint, index, jsonb, pgTable, text, timestamp } from "drizzle-orm/pg-core";

export type PayoutStatus = "pending" | "succeeded" | "failed";

export interface PayoutDestination {
  bank_code: string;
  account_number: string;
  account_name: string;
}

export const payouts = pgTable(
  "payouts",
  {
    id: text("id").primaryKey(),
    merchantId: text("merchant_id").notNull(),
    environment: text("environment").notNull(),
    amount: bigint("amount", { mode: "bigint" }).notNull(),
    currency: text("currency").notNull(),
    status: text("status").$type<PayoutStatus>().notNull(),
    destination: jsonb("destination").$type<PayoutDestination>().notNull(),
    failureReason: text("failure_reason"),
    /** When the simulated bank settles it if no test helper did first. */
    settlesAt: timestamp("settles_at", { withTimezone: true }).notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull(),
  },
  (table) => [
    index("payouts_merchant_idx").on(table.merchantId, table.environment, table.id),
    index("payouts_settle_idx").on(table.status, table.settlesAt),
  ],
);

export type PayoutRow = typeof payouts.$inferSelect;
