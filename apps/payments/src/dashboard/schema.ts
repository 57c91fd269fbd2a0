import { index, pgTable, text, timestamp } from "drizzle-orm/pg-core";

/** Dashboard sign-ins: the cookie carries a random id whose hash is stored here. */
export const dashboardSessions = pgTable(
  "dashboard_sessions",
  {
    idHash: text("id_hash").primaryKey(),
    merchantId: text("merchant_id").notNull(),
    environment: text("environment").notNull(),
    /** Every state-changing form carries this token. */
    csrfToken: text("csrf_token").notNull(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
  },
  (table) => [index("dashboard_sessions_expiry_idx").on(table.expiresAt)],
);
