import type { NodeError, NodeLogs, RunError, WorkflowGraph } from "@app/workflow";
import { sql } from "drizzle-orm";
import {
  type AnyPgColumn,
  boolean,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from "drizzle-orm/pg-core";
import type { EvaluationGate, GateResult } from "../versions/evaluation-gate.ts";
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
    /** Publishing first evaluates the draft on this dataset; null: no gate. */
    evaluationGate: jsonb("evaluation_gate").$type<EvaluationGate>(),
    /** The newest published version; null while never published (outsiders then reach the draft). */
    publishedVersion: integer("published_version"),
    publishedAt: timestamp("published_at", { withTimezone: true }),
    /** A workflow of the same workspace started with the failure when a run of this one fails. */
    errorWorkflowId: text("error_workflow_id").references((): AnyPgColumn => workflows.id, {
      onDelete: "set null",
    }),
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
    /** What the evaluation gate found when this version was published (or that force skipped it). */
    gateResult: jsonb("gate_result").$type<GateResult>(),
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

export type RunTrigger =
  | "api"
  | "hook"
  | "tool"
  | "mcp"
  | "app"
  | "schedule"
  | "error_workflow"
  | "evaluation";

/** `waiting`: paused at nodes that need a person's approval (workflow_approvals); no process holds it. */
export type RunStatusValue = "running" | "waiting" | "succeeded" | "failed" | "cancelled";

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
    status: text("status").$type<RunStatusValue>().notNull(),
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
    // Retention by age finds the oldest runs without reading the rest.
    index("workflow_runs_started_idx").on(table.startedAt),
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
    /** `waiting`: a node requiring approval that the run paused at (its `inputs` are the request). */
    status: text("status").$type<"running" | "waiting" | "succeeded" | "failed" | "skipped">().notNull(),
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

export type ApprovalStatus = "pending" | "approved" | "rejected" | "timed_out" | "cancelled";

/**
 * A node of a run that waits (or waited) for a person's approval: one per run and node. It is
 * written when the run pauses at the node, decided by POST /api/runs/{id}/approvals or by its
 * timeout, and read by every execution of the run after that (the decision is what the node runs with).
 */
export const workflowApprovals = pgTable(
  "workflow_approvals",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    runId: text("run_id")
      .notNull()
      .references(() => workflowRuns.id, { onDelete: "cascade" }),
    workflowId: text("workflow_id").notNull(),
    nodeId: text("node_id").notNull(),
    nodeType: text("node_type").notNull(),
    /** The node's title when it paused, for the inbox. */
    title: text("title"),
    /** The node's resolved request, as it would be sent. */
    input: jsonb("input"),
    status: text("status").$type<ApprovalStatus>().notNull(),
    requestedAt: timestamp("requested_at", { withTimezone: true }).notNull(),
    /** When `onTimeout` decides it; null to wait until a person does. */
    expiresAt: timestamp("expires_at", { withTimezone: true }),
    onTimeout: text("on_timeout").$type<"reject" | "fail">(),
    /** The request a person edited before approving; null to send `input` as it is. */
    decidedInput: jsonb("decided_input"),
    decidedAt: timestamp("decided_at", { withTimezone: true }),
    /** The user who decided, or null for a timeout. */
    decidedBy: text("decided_by"),
  },
  (table) => [
    uniqueIndex("workflow_approvals_run_node_idx").on(table.runId, table.nodeId),
    // The inbox: a workspace's pending approvals, newest first.
    index("workflow_approvals_inbox_idx")
      .on(table.workspaceId, table.id)
      .where(sql`${table.status} = 'pending'`),
    // The sweep of approvals past their timeout.
    index("workflow_approvals_expiry_idx")
      .on(table.expiresAt)
      .where(sql`${table.status} = 'pending' and ${table.expiresAt} is not null`),
  ],
);

export type ApprovalRow = typeof workflowApprovals.$inferSelect;

export type RunRow = typeof workflowRuns.$inferSelect;
export type NodeRunRow = typeof workflowNodeRuns.$inferSelect;

export type WorkflowRow = typeof workflows.$inferSelect;
