import { index, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { user } from "../auth/schema.ts";
import { workspaces } from "../workspaces/schema.ts";

/** API keys: only the SHA-256 of the key is stored; `prefix` lets people tell keys apart. */
export const apiKeys = pgTable(
  "api_keys",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    userId: text("user_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    /** What the key may do (`admin`, `editor`, `viewer`), never more than its creator's role at the time of use. */
    role: text("role").notNull().default("admin"),
    prefix: text("prefix").notNull(),
    keyHash: text("key_hash").notNull().unique(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    lastUsedAt: timestamp("last_used_at", { withTimezone: true }),
    expiresAt: timestamp("expires_at", { withTimezone: true }),
  },
  (table) => [index("api_keys_workspace_idx").on(table.workspaceId, table.id)],
);

export type ApiKeyRow = typeof apiKeys.$inferSelect;
