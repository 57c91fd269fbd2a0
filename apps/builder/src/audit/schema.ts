import { index, jsonb, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { workspaces } from "../workspaces/schema.ts";

/**
 * Who did what to a workspace and when. Append-only: nothing in the API changes or deletes an
 * entry; only the retention purge removes entries older than AUDIT_LOG_RETENTION_DAYS.
 */
export const auditLog = pgTable(
  "audit_log",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    /** The person (or the creator of the API key) who acted; kept as text so it outlives the account. */
    actorUserId: text("actor_user_id"),
    actorEmail: text("actor_email"),
    via: text("via").notNull(),
    action: text("action").notNull(),
    targetId: text("target_id"),
    /** Never secrets: the route, its path parameters and a few named fields. */
    details: jsonb("details").$type<Record<string, unknown>>().notNull(),
    requestId: text("request_id"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
  },
  (table) => [
    index("audit_log_workspace_idx").on(table.workspaceId, table.id),
    index("audit_log_created_idx").on(table.createdAt),
  ],
);

export type AuditLogRow = typeof auditLog.$inferSelect;
