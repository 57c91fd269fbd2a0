import { index, integer, jsonb, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { workspaces } from "../workspaces/schema.ts";

export type GenerationStatus = "starting" | "processing" | "succeeded" | "failed" | "canceled";

/** One stored output: the file served at /api/files/{file_id}. */
export interface GenerationOutput {
  file_id: string;
  content_type: string;
  size_bytes: number;
}

/** What billing reads: Replicate's predict time and what we stored. */
export interface GenerationMetrics {
  predict_time?: number;
  total_time?: number;
  output_count?: number;
  output_bytes?: number;
}

/**
 * A request to Replicate and its progress. The row is also the polling worker's queue: an
 * unfinished generation with a prediction id is polled when `next_poll_at` comes and its lease is
 * free, so a restart resumes where the previous process stopped.
 */
export const generations = pgTable(
  "generations",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    kind: text("kind").$type<"image" | "video">().notNull(),
    model: text("model").notNull(),
    status: text("status").$type<GenerationStatus>().notNull(),
    input: jsonb("input").$type<Record<string, unknown>>().notNull(),
    outputs: jsonb("outputs").$type<GenerationOutput[]>().notNull().default([]),
    error: text("error"),
    metrics: jsonb("metrics").$type<GenerationMetrics>().notNull().default({}),
    predictionId: text("prediction_id"),
    /**
     * The workspace's Replicate credential whose token created the prediction; null for the server-wide
     * token. Polls, cancels and webhook checks use the same token (the prediction and the webhook signing
     * secret belong to that token's account). Not a foreign key: it still says which credential it was
     * after that credential is deleted.
     */
    credentialId: text("credential_id"),
    /** Whether Replicate was given our webhook URL; polling is then only a slow fallback. */
    webhookUrl: text("webhook_url"),
    nextPollAt: timestamp("next_poll_at", { withTimezone: true }).notNull(),
    pollCount: integer("poll_count").notNull().default(0),
    leaseOwner: text("lease_owner"),
    leaseExpiresAt: timestamp("lease_expires_at", { withTimezone: true }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull(),
    completedAt: timestamp("completed_at", { withTimezone: true }),
  },
  (table) => [
    index("generations_workspace_idx").on(table.workspaceId, table.id),
    uniqueIndex("generations_prediction_idx").on(table.predictionId),
    index("generations_poll_idx").on(table.status, table.nextPollAt),
  ],
);

/** Webhook ids already applied, so a replayed delivery changes nothing. */
export const replicateWebhookEvents = pgTable("replicate_webhook_events", {
  id: text("id").primaryKey(),
  generationId: text("generation_id").notNull(),
  receivedAt: timestamp("received_at", { withTimezone: true }).notNull(),
});

export type GenerationRow = typeof generations.$inferSelect;
