import type { NodeError, NodeLogs, RunError, WorkflowGraph } from "@app/workflow";
import { sql } from "drizzle-orm";
import { boolean, index, integer, jsonb, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";
import { workspaces } from "../workspaces/schema.ts";

export const workflows = pgTable(
  "workflows",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    description: text("description").notNull().default(""),
    graph: jsonb("graph").$type<WorkflowGraph>().notNull(),
    /** Bumped to rotate the inbound trigger URL; the token itself is derived, never stored. */
    triggerVersion: integer("trigger_version").notNull().default(1),
    /** Served as a tool of the workspace's MCP endpoint (/api/mcp). */
    mcpExposed: boolean("mcp_exposed").notNull().default(false),
    /** The newest published version; null while never published (outsiders then reach the draft). */
    publishedVersion: integer("published_version"),
    publishedAt: timestamp("published_at", { withTimezone: true }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [index("workflows_workspace_idx").on(table.workspaceId, table.id)],
);

/** An immutable published version of a workflow; numbered 1, 2, 3… per workflow. */
export const workflowVersions = pgTable(
  "workflow_versions",
  {
    workflowId: text("workflow_id")
      .notNull()
      .references(() => workflows.id, { onDelete: "cascade" }),
    version: integer("version").notNull(),
    workspaceId: text("workspace_id").notNull(),
    notes: text("notes").notNull().default(""),
    name: text("name").notNull(),
    description: text("description").notNull(),
    graph: jsonb("graph").$type<WorkflowGraph>().notNull(),
    createdBy: text("created_by"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
  },
  (table) => [primaryKey({ columns: [table.workflowId, table.version] })],
);

export type WorkflowVersionRow = typeof workflowVersions.$inferSelect;

/** One attempt of a node as stored and answered (`NodeAttempt` with its time as ISO 8601). */
export interface NodeAttemptJson {
  attempt: number;
  error: NodeError | null;
  started_at: string;
  elapsed_ms: number;
}

export type RunTrigger = "api" | "hook" | "tool" | "mcp" | "app" | "schedule";

export const workflowRuns = pgTable(
  "workflow_runs",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    workflowId: text("workflow_id")
      .notNull()
      .references(() => workflows.id, { onDelete: "cascade" }),
    status: text("status").$type<"running" | "succeeded" | "failed" | "cancelled">().notNull(),
    trigger: text("trigger").$type<RunTrigger>().notNull(),
    /** The workflow version it ran; null for the draft. */
    version: integer("version"),
    /** Set when an app's end user started the run (the apps feature's ids, kept as text). */
    appId: text("app_id"),
    endUserId: text("end_user_id"),
    /** The graph as it was when the run started, so history stays readable after edits. */
    graph: jsonb("graph").$type<WorkflowGraph>().notNull(),
    inputs: jsonb("inputs").$type<Record<string, unknown>>().notNull(),
    outputs: jsonb("outputs").$type<Record<string, unknown>>(),
    error: jsonb("error").$type<RunError>(),
    steps: integer("steps").notNull().default(0),
    inputTokens: integer("input_tokens").notNull().default(0),
    outputTokens: integer("output_tokens").notNull().default(0),
    startedAt: timestamp("started_at", { withTimezone: true }).notNull(),
    finishedAt: timestamp("finished_at", { withTimezone: true }),
    elapsedMs: integer("elapsed_ms"),
    /** Refreshed while a process executes the run; a stale one means that process died. */
    heartbeatAt: timestamp("heartbeat_at", { withTimezone: true }).notNull(),
    /** Set by a cancel request that reached another process than the one running the run. */
    isCancelRequested: boolean("is_cancel_requested").notNull().default(false),
    /** How many times a live process took the run over after its process died (resumed it). */
    resumes: integer("resumes").notNull().default(0),
    /** The run this one replays (POST /api/runs/{id}/replay); null otherwise. */
    replayOf: text("replay_of"),
    /** The schedule that fired this run (no foreign key: a deleted schedule's runs stay readable). */
    scheduleId: text("schedule_id"),
    /** The tick this run fired for (the schedule's time, not when it started). */
    scheduledFor: timestamp("scheduled_for", { withTimezone: true }),
  },
  (table) => [
    index("workflow_runs_workflow_idx").on(table.workflowId, table.id),
    // The workspace's logs: every run, newest first, whatever the workflow.
    index("workflow_runs_workspace_idx").on(table.workspaceId, table.id),
    // The runs list filtered by status pages newest first without reading the other statuses' runs.
    index("workflow_runs_workflow_status_idx").on(table.workflowId, table.status, table.id),
    index("workflow_runs_running_idx").on(table.status, table.heartbeatAt),
    index("workflow_runs_end_user_idx").on(table.appId, table.endUserId, table.id),
    // A schedule's last run (its status in the schedule's answer).
    index("workflow_runs_schedule_idx")
      .on(table.scheduleId, table.scheduledFor)
      .where(sql`${table.scheduleId} is not null`),
    // Whether a schedule's previous run is still going (overlap "skip" and "queue"), at each tick.
    index("workflow_runs_schedule_running_idx")
      .on(table.scheduleId)
      .where(sql`${table.scheduleId} is not null and ${table.status} = 'running'`),
  ],
);

export const workflowNodeRuns = pgTable(
  "workflow_node_runs",
  {
    runId: text("run_id")
      .notNull()
      .references(() => workflowRuns.id, { onDelete: "cascade" }),
    nodeId: text("node_id").notNull(),
    nodeType: text("node_type").notNull(),
    status: text("status").$type<"running" | "succeeded" | "failed" | "skipped">().notNull(),
    step: integer("step"),
    inputs: jsonb("inputs"),
    outputs: jsonb("outputs").$type<Record<string, unknown>>(),
    error: jsonb("error").$type<{ code: string; message: string }>(),
    /** A Code node's stdout and stderr, each cut to NODE_LOG_LIMIT characters; null for other nodes. */
    logs: jsonb("logs").$type<NodeLogs>(),
    /** Each attempt with its error, for a node under a retry policy; null otherwise. */
    attempts: jsonb("attempts").$type<NodeAttemptJson[]>(),
    inputTokens: integer("input_tokens").notNull().default(0),
    outputTokens: integer("output_tokens").notNull().default(0),
    startedAt: timestamp("started_at", { withTimezone: true }),
    finishedAt: timestamp("finished_at", { withTimezone: true }),
    elapsedMs: integer("elapsed_ms"),
  },
  (table) => [primaryKey({ columns: [table.runId, table.nodeId] })],
);

export type RunRow = typeof workflowRuns.$inferSelect;
export type NodeRunRow = typeof workflowNodeRuns.$inferSelect;

export type WorkflowRow = typeof workflows.$inferSelect;
