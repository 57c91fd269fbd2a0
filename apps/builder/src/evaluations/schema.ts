import { sql } from "drizzle-orm";
import { index, integer, jsonb, pgTable, primaryKey, real, text, timestamp } from "drizzle-orm/pg-core";
import { workspaces } from "../workspaces/schema.ts";
import type { EvaluatorSpec } from "./contract.ts";

export const datasets = pgTable(
  "datasets",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    rowCount: integer("row_count").notNull().default(0),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
  },
  (table) => [index("datasets_workspace_idx").on(table.workspaceId, table.id)],
);

export type DatasetRow = typeof datasets.$inferSelect;

export const datasetRows = pgTable(
  "dataset_rows",
  {
    datasetId: text("dataset_id")
      .notNull()
      .references(() => datasets.id, { onDelete: "cascade" }),
    /** 1, 2, 3… in the order the rows were added. */
    position: integer("position").notNull(),
    /** An agent's message; null for a workflow's row. */
    input: text("input"),
    /** A workflow's inputs; null for an agent's row. */
    inputs: jsonb("inputs").$type<Record<string, unknown>>(),
    expected: text("expected"),
  },
  (table) => [primaryKey({ columns: [table.datasetId, table.position] })],
);

export type DatasetItemRow = typeof datasetRows.$inferSelect;

export type EvaluationStatus = "running" | "succeeded" | "failed";
export type EvaluationTargetKind = "agent" | "workflow";

export const evaluations = pgTable(
  "evaluations",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    targetKind: text("target_kind").$type<EvaluationTargetKind>().notNull(),
    targetId: text("target_id").notNull(),
    /** What was asked for: a number, "published" or "draft"; `version` is what it resolved to. */
    versionSelector: text("version_selector").notNull(),
    /** The version the rows run; null for the draft. */
    version: integer("version"),
    /** Kept as text: the evaluation (and its copied rows) outlives a deleted dataset. */
    datasetId: text("dataset_id").notNull(),
    evaluators: jsonb("evaluators").$type<EvaluatorSpec[]>().notNull(),
    status: text("status").$type<EvaluationStatus>().notNull(),
    rowsTotal: integer("rows_total").notNull(),
    /** Why a publish started it ("publish_gate"), or "api". */
    reason: text("reason").notNull().default("api"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
    finishedAt: timestamp("finished_at", { withTimezone: true }),
  },
  (table) => [index("evaluations_workspace_idx").on(table.workspaceId, table.id)],
);

export type EvaluationRow = typeof evaluations.$inferSelect;

export type ResultStatus = "pending" | "running" | "succeeded" | "failed";

/** One score of one evaluator on one row. */
export interface EvaluatorScore {
  evaluator: string;
  score: number;
  passed: boolean;
  reason: string | null;
}

/**
 * One dataset row of an evaluation, copied at its start so a later change to the dataset does not
 * change a running evaluation. Rows are claimed with a lease (`lease_until`); `attempt` grows with each
 * claim and a finish writes only over its own attempt, so a row is counted once even if a process
 * that lost its lease finishes late.
 */
export const evaluationResults = pgTable(
  "evaluation_results",
  {
    evaluationId: text("evaluation_id")
      .notNull()
      .references(() => evaluations.id, { onDelete: "cascade" }),
    position: integer("position").notNull(),
    workspaceId: text("workspace_id").notNull(),
    input: text("input"),
    inputs: jsonb("inputs").$type<Record<string, unknown>>(),
    expected: text("expected"),
    status: text("status").$type<ResultStatus>().notNull(),
    attempt: integer("attempt").notNull().default(0),
    leaseUntil: timestamp("lease_until", { withTimezone: true }),
    output: text("output"),
    error: text("error"),
    scores: jsonb("scores").$type<EvaluatorScore[]>(),
    score: real("score"),
    latencyMs: integer("latency_ms"),
    credits: integer("credits"),
    inputTokens: integer("input_tokens"),
    outputTokens: integer("output_tokens"),
    finishedAt: timestamp("finished_at", { withTimezone: true }),
  },
  (table) => [
    primaryKey({ columns: [table.evaluationId, table.position] }),
    // The worker's claim: unfinished rows only.
    index("evaluation_results_open_idx")
      .on(table.status, table.leaseUntil)
      .where(sql`${table.status} in ('pending', 'running')`),
  ],
);

export type EvaluationResultRow = typeof evaluationResults.$inferSelect;
