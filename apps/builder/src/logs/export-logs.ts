import { analyzeIfStale } from "@app/db";
import type { ToolCallSummary } from "../agents/conversation-json.ts";
import {
  type ConversationLogFilter,
  type ExportedMessage,
  exportMessagesPage,
} from "../agents/log-conversations.ts";
import type { BuilderDb } from "../db/index.ts";
import { exportRunsPage, type LoggedRun, type RunLogFilter } from "../workflows/runs/log-runs.ts";
import { MESSAGE_EXPORT_COLUMNS, RUN_EXPORT_COLUMNS } from "./contract.ts";
import { CSV_BOM, type CsvValue, csvRecord } from "./csv.ts";
import { EXPORT_PAGE_SIZE, pagedExport } from "./export-stream.ts";

export type ExportFormat = "jsonl" | "csv";

/**
 * The messages of the conversations matching `filter`, oldest first, one JSON object a line or one
 * CSV record each (columns MESSAGE_EXPORT_COLUMNS), streamed a page at a time.
 *
 * @example return c.body(await exportConversations(deps.db, workspaceId, filter, "csv"), 200, { "content-type": "text/csv; charset=utf-8" });
 */
export async function exportConversations(
  db: BuilderDb,
  workspaceId: string,
  filter: ConversationLogFilter,
  format: ExportFormat,
): Promise<ReadableStream<Uint8Array>> {
  // Each page is an index range only while the planner knows how large the tables are.
  await analyzeIfStale(db, ["messages", "conversations", "message_feedback"]);
  return pagedExport({
    head: format === "csv" ? CSV_BOM + csvRecord(MESSAGE_EXPORT_COLUMNS) : "",
    page: (after) => exportMessagesPage(db, workspaceId, filter, after, EXPORT_PAGE_SIZE),
    text: (rows) => rows.map(format === "csv" ? messageRecord : messageLine).join(""),
  });
}

/**
 * The runs matching `filter`, oldest first, as JSON lines or CSV records (columns RUN_EXPORT_COLUMNS).
 *
 * @example return c.body(await exportRuns(deps.db, workspaceId, filter, "jsonl"), 200);
 */
export async function exportRuns(
  db: BuilderDb,
  workspaceId: string,
  filter: RunLogFilter,
  format: ExportFormat,
): Promise<ReadableStream<Uint8Array>> {
  await analyzeIfStale(db, ["workflow_runs"]);
  return pagedExport({
    head: format === "csv" ? CSV_BOM + csvRecord(RUN_EXPORT_COLUMNS) : "",
    page: (after) => exportRunsPage(db, workspaceId, filter, after, EXPORT_PAGE_SIZE),
    text: (rows) => rows.map(format === "csv" ? runRecord : runLine).join(""),
  });
}

function messageLine(row: ExportedMessage): string {
  return `${JSON.stringify({
    conversation_id: row.conversation_id,
    message_id: row.id,
    created_at: row.created_at,
    agent_id: row.agent_id,
    app_id: row.app_id,
    end_user_id: row.end_user_id,
    conversation_source: row.conversation_source,
    title: row.title,
    role: row.role,
    content: row.content,
    answered_by: row.source,
    annotation:
      row.annotation_id === null ? null : { id: row.annotation_id, similarity: row.annotation_similarity },
    tool_calls: row.tool_calls as ToolCallSummary[],
    provider: row.provider,
    model: row.model,
    version: row.version,
    finish_reason: row.finish_reason,
    usage:
      row.input_tokens === null || row.output_tokens === null
        ? null
        : { input_tokens: row.input_tokens, output_tokens: row.output_tokens },
    latency_ms: row.latency_ms,
    feedback: { user: row.user_feedback, team: row.team_feedback },
  })}\n`;
}

function messageRecord(row: ExportedMessage): string {
  const values: Record<(typeof MESSAGE_EXPORT_COLUMNS)[number], CsvValue> = {
    conversation_id: row.conversation_id,
    message_id: row.id,
    created_at: row.created_at,
    agent_id: row.agent_id,
    app_id: row.app_id,
    end_user_id: row.end_user_id,
    conversation_source: row.conversation_source,
    title: row.title,
    role: row.role,
    content: row.content,
    answered_by: row.source,
    annotation_id: row.annotation_id,
    annotation_similarity: row.annotation_similarity,
    tool_calls: row.tool_calls.map((call) => call.name).join(" "),
    provider: row.provider,
    model: row.model,
    version: row.version,
    finish_reason: row.finish_reason,
    input_tokens: row.input_tokens,
    output_tokens: row.output_tokens,
    latency_ms: row.latency_ms,
    user_rating: row.user_feedback?.rating,
    user_comment: row.user_feedback?.comment,
    team_rating: row.team_feedback?.rating,
    team_comment: row.team_feedback?.comment,
  };
  return csvRecord(MESSAGE_EXPORT_COLUMNS.map((column) => values[column]));
}

function runLine(row: LoggedRun): string {
  return `${JSON.stringify({
    run_id: row.id,
    workflow_id: row.workflowId,
    status: row.status,
    trigger: row.trigger,
    version: row.version,
    app_id: row.appId,
    end_user_id: row.endUserId,
    started_at: row.startedAt.toISOString(),
    finished_at: row.finishedAt?.toISOString() ?? null,
    elapsed_ms: row.elapsedMs,
    steps: row.steps,
    usage: { input_tokens: row.inputTokens, output_tokens: row.outputTokens },
    inputs: row.inputs,
    outputs: row.outputs,
    error: row.error,
  })}\n`;
}

function runRecord(row: LoggedRun): string {
  const values: Record<(typeof RUN_EXPORT_COLUMNS)[number], CsvValue> = {
    run_id: row.id,
    workflow_id: row.workflowId,
    status: row.status,
    trigger: row.trigger,
    version: row.version,
    app_id: row.appId,
    end_user_id: row.endUserId,
    started_at: row.startedAt.toISOString(),
    finished_at: row.finishedAt?.toISOString() ?? null,
    elapsed_ms: row.elapsedMs,
    steps: row.steps,
    input_tokens: row.inputTokens,
    output_tokens: row.outputTokens,
    inputs: JSON.stringify(row.inputs),
    outputs: row.outputs === null ? null : JSON.stringify(row.outputs),
    error_code: row.error?.code ?? null,
    error_message: row.error?.message ?? null,
  };
  return csvRecord(RUN_EXPORT_COLUMNS.map((column) => values[column]));
}
