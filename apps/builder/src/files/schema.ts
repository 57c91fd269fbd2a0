import { bigint, index, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { workspaces } from "../workspaces/schema.ts";

/**
 * Files the service keeps for a workspace (generation outputs today). The bytes live in `Storage`
 * under `storage_key`; this row is what makes them owned, typed and servable at /api/files/{id}.
 */
export const storedFiles = pgTable(
  "stored_files",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    storageKey: text("storage_key").notNull(),
    contentType: text("content_type").notNull(),
    sizeBytes: bigint("size_bytes", { mode: "number" }).notNull(),
    /** The generation that produced the file, so deleting the generation removes it. */
    generationId: text("generation_id"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
  },
  (table) => [
    index("stored_files_workspace_idx").on(table.workspaceId, table.id),
    index("stored_files_generation_idx").on(table.generationId),
  ],
);

export type StoredFileRow = typeof storedFiles.$inferSelect;
