import {
  boolean,
  doublePrecision,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
} from "drizzle-orm/pg-core";
import type { EvaluationGate, GateResult } from "../versions/evaluation-gate.ts";
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
    /** Publishing first evaluates the draft on this dataset; null: no gate. */
    evaluationGate: jsonb("evaluation_gate").$type<EvaluationGate>(),
    /**
     * Curated answers given instead of the model's (the annotations feature); null while never set.
     * Not part of a version: fixing an answer takes effect without publishing.
     */
    annotationReply: jsonb("annotation_reply").$type<AnnotationReplySetting | null>(),
    /** The newest published version; null while never published (outsiders then reach the draft). */
    publishedVersion: integer("published_version"),
    publishedAt: timestamp("published_at", { withTimezone: true }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [index("agents_workspace_idx").on(table.workspaceId, table.id)],
);

/** When a question is answered with an annotation instead of calling the model. */
export interface AnnotationReplySetting {
  enabled: boolean;
  /** The lowest cosine similarity (0–1) between the question and an annotated one that counts as a hit. */
  threshold: number;
  /** The embedding model questions are compared with (`local` needs no key). */
  embedding: { provider: string; model: string };
}

/** Where a conversation was held: the studio, the API with a key, an app, MCP, or a workflow's run_agent. */
export type ConversationSource = "studio" | "api" | "app" | "mcp" | "workflow";

/** What wrote an assistant message: the model, or an annotation given in its place. */
export type AnswerSource = "model" | "annotation";

/** What an agent version fixes: everything a turn reads from the agent. */
export interface AgentSnapshot {
  name: string;
  description: string;
  provider: string;
  model: string;
  instructions: string;
  temperature: number | null;
  tools: unknown[];
  knowledgeBaseIds: string[];
  memoryTurns: number;
}

/** An immutable published version of an agent; numbered 1, 2, 3… per agent. */
export const agentVersions = pgTable(
  "agent_versions",
  {
    agentId: text("agent_id")
      .notNull()
      .references(() => agents.id, { onDelete: "cascade" }),
    version: integer("version").notNull(),
    workspaceId: text("workspace_id").notNull(),
    notes: text("notes").notNull().default(""),
    snapshot: jsonb("snapshot").$type<AgentSnapshot>().notNull(),
    /** What the evaluation gate found when this version was published (or that force skipped it). */
    gateResult: jsonb("gate_result").$type<GateResult>(),
    createdBy: text("created_by"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
  },
  (table) => [primaryKey({ columns: [table.agentId, table.version] })],
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
    /** The agent version its first turn ran; null for the draft. */
    version: integer("version"),
    /** Set when an app's end user holds the conversation (the apps feature's ids, kept as text). */
    appId: text("app_id"),
    endUserId: text("end_user_id"),
    /** Where it was held; rows from before it was recorded are `api`, or `app` when an app's. */
    source: text("source").$type<ConversationSource>().notNull().default("api"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull(),
  },
  (table) => [
    index("conversations_agent_idx").on(table.workspaceId, table.agentId, table.id),
    // The workspace's logs: every conversation, newest first, whatever the agent.
    index("conversations_workspace_idx").on(table.workspaceId, table.id),
    // An end user's own list: the public API's conversations page.
    index("conversations_end_user_idx").on(table.appId, table.endUserId, table.id),
  ],
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
    /** The agent version that answered (assistant messages); null for the draft. */
    version: integer("version"),
    /** Assistant messages: the model's answer, or an annotation's; null for user messages. */
    source: text("source").$type<AnswerSource>(),
    /** The annotation that answered, and how similar its question was (0–1). */
    annotationId: text("annotation_id"),
    annotationSimilarity: doublePrecision("annotation_similarity"),
    /** Assistant messages: from the user's message to the stored answer, in milliseconds. */
    latencyMs: integer("latency_ms"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
  },
  (table) => [
    index("messages_conversation_idx").on(table.conversationId, table.id),
    // The logs' export walks a workspace's messages in order, a page at a time.
    index("messages_workspace_idx").on(table.workspaceId, table.id),
  ],
);

/** A rating of an answer: one per message and source (the end user's, the team's). */
export const messageFeedback = pgTable(
  "message_feedback",
  {
    messageId: text("message_id")
      .notNull()
      .references(() => messages.id, { onDelete: "cascade" }),
    source: text("source").$type<"user" | "team">().notNull(),
    workspaceId: text("workspace_id").notNull(),
    rating: text("rating").$type<"like" | "dislike">().notNull(),
    comment: text("comment"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull(),
  },
  (table) => [primaryKey({ columns: [table.messageId, table.source] })],
);

export type MessageFeedbackRow = typeof messageFeedback.$inferSelect;

export type ConversationRow = typeof conversations.$inferSelect;

export type MessageRow = typeof messages.$inferSelect;

export type AgentRow = typeof agents.$inferSelect;

export type AgentVersionRow = typeof agentVersions.$inferSelect;
