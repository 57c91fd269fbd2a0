import { bigint, index, jsonb, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { workspaces } from "../workspaces/schema.ts";

export type LedgerKind = "starter" | "purchase" | "refund" | "usage";

/**
 * Every change to a workspace's credits, appended and never edited (an update is refused by a
 * trigger): the balance is the sum of `credits`. `reference` names what the entry is for (an order's
 * purchase or refund, a model call, a generation, a sandbox run, the starter grant) and is unique, so
 * anything applied twice — a redelivered webhook, a retried charge — books once.
 */
export const creditLedger = pgTable(
  "billing_ledger",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    kind: text("kind").$type<LedgerKind>().notNull(),
    /** Positive adds credits, negative spends them. */
    credits: bigint("credits", { mode: "number" }).notNull(),
    description: text("description").notNull(),
    reference: text("reference").notNull(),
    orderId: text("order_id"),
    /** What was metered (tokens, model, seconds, …) or bought. */
    details: jsonb("details").$type<Record<string, unknown>>().notNull().default({}),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
  },
  (table) => [
    uniqueIndex("billing_ledger_reference_idx").on(table.reference),
    index("billing_ledger_workspace_idx").on(table.workspaceId, table.id),
  ],
);

/**
 * Each workspace's balance: the running sum of its ledger, kept by a trigger on every ledger insert
 * (in the inserting transaction, so it cannot drift), so reading it does not sum a ledger that grows
 * with every model call. The row lock also orders concurrent charges of one workspace.
 */
export const creditBalances = pgTable("billing_balances", {
  workspaceId: text("workspace_id")
    .primaryKey()
    .references(() => workspaces.id, { onDelete: "cascade" }),
  credits: bigint("credits", { mode: "number" }).notNull(),
});

export type OrderStatus = "pending" | "paid" | "failed" | "expired" | "refunded";

/** A credit pack being bought: one payment on the payment service, its amount in integer minor units. */
export const creditOrders = pgTable(
  "billing_orders",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    packId: text("pack_id").notNull(),
    credits: bigint("credits", { mode: "number" }).notNull(),
    amount: bigint("amount", { mode: "bigint" }).notNull(),
    currency: text("currency").notNull(),
    status: text("status").$type<OrderStatus>().notNull(),
    paymentId: text("payment_id"),
    checkoutUrl: text("checkout_url"),
    failureReason: text("failure_reason"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull(),
    paidAt: timestamp("paid_at", { withTimezone: true }),
  },
  (table) => [
    uniqueIndex("billing_orders_payment_idx").on(table.paymentId),
    index("billing_orders_workspace_idx").on(table.workspaceId, table.id),
  ],
);

/**
 * Every payment-service event this service has handled, by its id: the row is written in the
 * transaction that applies the event, so a webhook delivered twice, or one the reconciler also
 * finds, is applied once. Events about nobody's order are kept too, with their outcome.
 */
export const paymentServiceEvents = pgTable("billing_payment_events", {
  id: text("id").primaryKey(),
  type: text("type").notNull(),
  paymentId: text("payment_id"),
  orderId: text("order_id"),
  outcome: text("outcome").notNull(),
  source: text("source").$type<"webhook" | "reconciler">().notNull(),
  receivedAt: timestamp("received_at", { withTimezone: true }).notNull(),
});

/**
 * The builder as a merchant of the payment service (one row): which account it is linked to (a
 * digest of the service's URL and the secret key, so a new key starts afresh), the webhook endpoint
 * it registered there with its signing secret sealed under the master key, and how far the
 * reconciler has read the events API.
 */
export const paymentServiceLink = pgTable("billing_payment_link", {
  id: text("id").primaryKey(),
  account: text("account").notNull(),
  endpointId: text("endpoint_id"),
  webhookUrl: text("webhook_url"),
  sealedSecret: text("sealed_secret"),
  eventsCursor: text("events_cursor"),
  reconciledAt: timestamp("reconciled_at", { withTimezone: true }),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull(),
});

export type PaymentLinkRow = typeof paymentServiceLink.$inferSelect;

export type OrderRow = typeof creditOrders.$inferSelect;

export type LedgerRow = typeof creditLedger.$inferSelect;
