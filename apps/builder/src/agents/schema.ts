import { doublePrecision, index, integer, jsonb, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { workspaces } from "../workspaces/schema.ts";

export const agents = pgTable(
  "agents",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    description: text("description").notNull().default(""),
    provider: text("provider").notNull(),
    model: text("model").notNull(),
    instructions: text("instructions").notNull().default(""),
    temperature: doublePrecision("temperature"),
    tools: jsonb("tools").$type<unknown[]>().notNull().default([]),
    knowledgeBaseIds: jsonb("knowledge_base_ids").$type<string[]>().notNull().default([]),
    memoryTurns: integer("memory_turns").notNull().default(10),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [index("agents_workspace_idx").on(table.workspaceId, table.id)],
);
