import { index, integer, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { workspaces } from "../workspaces/schema.ts";

/**
 * Every call to a provider's model (each step of a tool loop is one), for billing and the usage
 * view. Agent and conversation ids are kept as plain text so usage outlives deleted agents.
 */
export const modelCalls = pgTable(
  "model_calls",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    source: text("source").notNull(),
    agentId: text("agent_id"),
    conversationId: text("conversation_id"),
    provider: text("provider").notNull(),
    model: text("model").notNull(),
    inputTokens: integer("input_tokens").notNull(),
    outputTokens: integer("output_tokens").notNull(),
    latencyMs: integer("latency_ms").notNull(),
    status: text("status").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
  },
  (table) => [index("model_calls_workspace_created_idx").on(table.workspaceId, table.createdAt)],
);

export type ModelCallRow = typeof modelCalls.$inferSelect;
