import {
  boolean,
  doublePrecision,
  index,
  integer,
  jsonb,
  pgTable,
  text,
  timestamp,
} from "drizzle-orm/pg-core";
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
    /** Served as a tool of the workspace's MCP endpoint (/api/mcp). */
    mcpExposed: boolean("mcp_exposed").notNull().default(false),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [index("agents_workspace_idx").on(table.workspaceId, table.id)],
);

/** A chat with an agent; its messages are the agent's memory. */
export const conversations = pgTable(
  "conversations",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    agentId: text("agent_id")
      .notNull()
      .references(() => agents.id, { onDelete: "cascade" }),
    title: text("title").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull(),
  },
  (table) => [index("conversations_agent_idx").on(table.workspaceId, table.agentId, table.id)],
);

/**
 * One side of a turn. An assistant row keeps the exact model messages of its turn (tool calls
 * and results included) so memory replays what the agent did, not only what it said.
 */
export const messages = pgTable(
  "messages",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id").notNull(),
    conversationId: text("conversation_id")
      .notNull()
      .references(() => conversations.id, { onDelete: "cascade" }),
    role: text("role").notNull(),
    content: text("content").notNull(),
    toolCalls: jsonb("tool_calls").$type<unknown[]>().notNull().default([]),
    modelMessages: jsonb("model_messages").$type<unknown[]>(),
    provider: text("provider"),
    model: text("model"),
    inputTokens: integer("input_tokens"),
    outputTokens: integer("output_tokens"),
    finishReason: text("finish_reason"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
  },
  (table) => [index("messages_conversation_idx").on(table.conversationId, table.id)],
);

export type ConversationRow = typeof conversations.$inferSelect;

export type MessageRow = typeof messages.$inferSelect;

export type AgentRow = typeof agents.$inferSelect;
