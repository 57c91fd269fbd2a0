import { index, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { workspaces } from "../workspaces/schema.ts";

/**
 * Provider keys of a workspace. The key is stored only as AES-256-GCM ciphertext bound to the
 * row's id and workspace; `key_hint` is what people see.
 */
export const credentials = pgTable(
  "credentials",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    provider: text("provider").notNull(),
    name: text("name").notNull(),
    baseUrl: text("base_url"),
    encryptedKey: text("encrypted_key").notNull(),
    keyHint: text("key_hint").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    lastUsedAt: timestamp("last_used_at", { withTimezone: true }),
  },
  (table) => [
    index("credentials_workspace_idx").on(table.workspaceId, table.id),
    index("credentials_workspace_provider_idx").on(table.workspaceId, table.provider, table.id),
  ],
);

export type CredentialRow = typeof credentials.$inferSelect;
