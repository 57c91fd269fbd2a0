import { index, integer, pgTable, real, text, timestamp } from "drizzle-orm/pg-core";
import { agents } from "../agents/schema.ts";
import { workspaces } from "../workspaces/schema.ts";

/**
 * A curated question → answer pair of an agent. With the agent's `annotation_reply` on, a question
 * similar enough to `question` is answered with `answer` without calling the model.
 */
export const annotations = pgTable(
  "annotations",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    agentId: text("agent_id")
      .notNull()
      .references(() => agents.id, { onDelete: "cascade" }),
    question: text("question").notNull(),
    answer: text("answer").notNull(),
    /**
     * The question's embedding, normalised (so a dot product is the cosine), by the model named in
     * `embeddingModel` (`provider/model`); null until a reply first needs it or when that model changed.
     */
    embedding: real("embedding").array(),
    embeddingModel: text("embedding_model"),
    /** The message this annotation was made from (the Logs screen's "annotate"), if any. */
    messageId: text("message_id"),
    hitCount: integer("hit_count").notNull().default(0),
    lastHitAt: timestamp("last_hit_at", { withTimezone: true }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull(),
  },
  (table) => [index("annotations_agent_idx").on(table.agentId, table.id)],
);

export type AnnotationRow = typeof annotations.$inferSelect;
