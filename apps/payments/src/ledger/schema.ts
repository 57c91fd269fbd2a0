import { bigint, index, pgTable, text, timestamp } from "drizzle-orm/pg-core";

/**
 * The merchant's money, append-only: a balance is the sum of its entries, and a mistake or a
 * failed payout is corrected by a new entry, never by editing an old one.
 */
export const ledgerEntries = pgTable(
  "ledger_entries",
  {
    id: text("id").primaryKey(),
    merchantId: text("merchant_id").notNull(),
    environment: text("environment").notNull(),
    currency: text("currency").notNull(),
    /** Signed, in minor units: credits are positive, debits negative. */
    amount: bigint("amount", { mode: "bigint" }).notNull(),
    kind: text("kind").$type<LedgerKind>().notNull(),
    /** The payment, refund or payout the entry comes from. */
    sourceId: text("source_id").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
  },
  (table) => [index("ledger_entries_balance_idx").on(table.merchantId, table.environment, table.currency)],
);

export type LedgerKind = "payment" | "refund" | "payout" | "payout_reversal";
