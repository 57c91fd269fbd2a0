import { type Clock, newId, storableJson, toStorable } from "@app/core";
import { newestFirst, type PageRequest } from "@app/db";
import { workflowRunsTotal } from "@app/observability";
import type { WebhooksDb } from "@app/webhooks";
import type { PendingApproval, RunError, RunFinishedEvent, WorkflowGraph } from "@app/workflow";
import { and, asc, eq, gte, inArray, lte, not, or, type SQL, sql } from "drizzle-orm";
import type { BuilderDb } from "../../db/index.ts";
import { emitEvent } from "../../events/emit-event.ts";
import { type NodeRunRow, type RunRow, type RunTrigger, workflowNodeRuns, workflowRuns } from "../schema.ts";
import { pendingJson, runJson } from "./run-json.ts";

export type NodeRunValues = typeof workflowNodeRuns.$inferInsert;

export interface NewRun {
  id: string;
  workspaceId: string;
  workflowId: string;
  trigger: RunTrigger;
  graph: WorkflowGraph;
  inputs: Record<string, unknown>;
  startedAt: Date;
  /** The workflow version it runs; null for the draft. */
  version: number | null;
  /** An app's end user who started it. */
  appId: string | null;
  endUserId: string | null;
  /** The run it replays; null or absent otherwise. */
  replayOf?: string | null;
  /** Takeovers after a dead process so far (0, or absent, for a new run). */
  resumes?: number;
  /** The schedule whose tick fired the run, and that tick; null for other triggers. */
  scheduleId: string | null;
  scheduledFor: Date | null;
}

/**
 * Writes a run row in status `running`; a schedule's claim writes several in its transaction (`db`
 * is then the transaction), so each tick's run and the schedule's advance commit together.
 *
 * @example await insertRuns(db, [run]);
 */
export async function insertRuns(db: BuilderDb, runs: NewRun[]): Promise<void> {
  if (runs.length === 0) return;
  // Inputs may come from a model (an agent's workflow tool), past the HTTP input guard.
  await db.insert(workflowRuns).values(
    runs.map((values) => ({
      ...values,
      inputs: toStorable(values.inputs),
      status: "running" as const,
      heartbeatAt: values.startedAt,
    })),
  );
}

type RunStoreDeps = { db: BuilderDb; clock: Clock };

/**
 * Records the end of a run: its row (inserted, or updated when `rowExists` because a slow or
 * watched run wrote it at start), its last node records and its `workflow.run.*` event, in one
 * statement (a blocking run's only write, so its round trips are the API's throughput). Answers
 * how many webhook deliveries the event scheduled (the delivery engine needs waking only then).
 */
export async function recordRunEnd(
  { db, clock }: RunStoreDeps,
  run: NewRun,
  finished: RunFinishedEvent,
  nodes: NodeRunValues[],
  { rowExists }: { rowExists: boolean },
): Promise<number> {
  const row: RunRow = {
    ...run,
    replayOf: run.replayOf ?? null,
    resumes: run.resumes ?? 0,
    ...finishedColumns(finished),
    heartbeatAt: finished.finished_at,
    isCancelRequested: false,
  };
  const isWaiting = finished.status === "waiting";
  const record = sql`jsonb_populate_record(null::workflow_runs, ${runRecord(row)}::jsonb)`;
  const write = rowExists
    ? sql`update workflow_runs w set status = r.status, outputs = r.outputs, error = r.error,
        steps = r.steps, input_tokens = r.input_tokens, output_tokens = r.output_tokens,
        started_at = r.started_at, finished_at = r.finished_at, elapsed_ms = r.elapsed_ms
        from ${record} r where w.id = r.id`
    : sql`insert into workflow_runs select * from ${record}`;
  const event = await emitRunEvent(
    { db, clock },
    row,
    [
      sql`run_row as (${write})`,
      ...nodeRunsCte(nodes),
      ...(isWaiting ? [sql`approval_rows as (${insertApprovals(run, finished.pending)})`] : []),
    ],
    isWaiting ? finished.pending : undefined,
  );
  // A waiting run has no outcome yet: it is counted when it ends.
  if (!isWaiting) workflowRunsTotal.inc({ outcome: finished.status });
  return event.deliveryCount;
}

/**
 * The event of a finished run: `workflow.run.succeeded`, or `workflow.run.failed` for a failed or
 * cancelled one (the snapshot's `status` tells which), with the run as GET /api/runs/{id} shows it.
 * `also` are the writes that commit with it.
 */
export function emitRunEvent(
  deps: { db: WebhooksDb; clock: Clock },
  row: RunRow,
  also: SQL[] = [],
  pending?: PendingApproval[],
) {
  const run = runJson(row, undefined);
  return emitEvent(
    deps,
    {
      workspaceId: row.workspaceId,
      type: runEventType(row.status),
      // A waiting run's event says what it waits for.
      data: toStorable(pending ? { ...run, pending: pending.map(pendingJson) } : run),
    },
    also,
  );
}

function runEventType(status: RunRow["status"]) {
  if (status === "succeeded") return "workflow.run.succeeded" as const;
  if (status === "waiting") return "workflow.run.waiting" as const;
  return "workflow.run.failed" as const;
}

/**
 * The approvals a run ending `waiting` asks for: one row per paused node, kept as it is when the node
 * was already pending (a run going on after another node's decision pauses at it again).
 */
function insertApprovals(run: NewRun, pending: PendingApproval[]): SQL {
  const records = pending.map((approval) => ({
    id: newId("apr", approval.requested_at.getTime()),
    workspace_id: run.workspaceId,
    run_id: run.id,
    workflow_id: run.workflowId,
    node_id: approval.node_id,
    node_type: approval.node_type,
    title: approval.title ?? null,
    input: approval.input ?? null,
    requested_at: approval.requested_at.toISOString(),
    expires_at: approval.expires_at?.toISOString() ?? null,
    on_timeout: approval.on_timeout,
  }));
  return sql`
    insert into workflow_approvals (id, workspace_id, run_id, workflow_id, node_id, node_type, title,
      input, status, requested_at, expires_at, on_timeout)
    select id, workspace_id, run_id, workflow_id, node_id, node_type, title, input, 'pending',
      requested_at, expires_at, on_timeout
    from jsonb_to_recordset(${storableJson(records)}::jsonb) as r(id text, workspace_id text,
      run_id text, workflow_id text, node_id text, node_type text, title text, input jsonb,
      requested_at timestamptz, expires_at timestamptz, on_timeout text)
    on conflict (run_id, node_id) do nothing`;
}

function finishedColumns(finished: RunFinishedEvent) {
  // A waiting run has not finished: it has no end time yet.
  const isWaiting = finished.status === "waiting";
  return {
    status: finished.status,
    outputs: finished.outputs,
    error: finished.error,
    steps: finished.steps,
    inputTokens: finished.usage.input_tokens ?? 0,
    outputTokens: finished.usage.output_tokens ?? 0,
    // The engine's own start time, so the record and the blocking answer agree.
    startedAt: finished.started_at,
    finishedAt: isWaiting ? null : finished.finished_at,
    elapsedMs: isWaiting ? null : Math.round(finished.elapsed_ms),
  };
}

/**
 * A run row as one JSON parameter, keyed by column, for `jsonb_populate_record`: one bound value
 * instead of nineteen, on the write every run makes.
 */
function runRecord(row: RunRow): string {
  return storableJson({
    id: row.id,
    workspace_id: row.workspaceId,
    workflow_id: row.workflowId,
    status: row.status,
    trigger: row.trigger,
    version: row.version,
    app_id: row.appId,
    end_user_id: row.endUserId,
    graph: row.graph,
    inputs: row.inputs,
    outputs: row.outputs,
    error: row.error,
    steps: row.steps,
    input_tokens: row.inputTokens,
    output_tokens: row.outputTokens,
    started_at: row.startedAt,
    finished_at: row.finishedAt,
    elapsed_ms: row.elapsedMs,
    heartbeat_at: row.heartbeatAt,
    is_cancel_requested: row.isCancelRequested,
    resumes: row.resumes,
    replay_of: row.replayOf,
    schedule_id: row.scheduleId,
    scheduled_for: row.scheduledFor,
  });
}

/** Writes node records (insert or replace), in one statement however many nodes changed. */
export async function saveNodeRuns(db: BuilderDb, rows: NodeRunValues[]): Promise<void> {
  if (rows.length > 0) await db.execute(upsertNodeRuns(rows));
}

function nodeRunsCte(rows: NodeRunValues[]): SQL[] {
  return rows.length === 0 ? [] : [sql`node_rows as (${upsertNodeRuns(rows)})`];
}

/**
 * The insert-or-replace of node records. The rows travel as one JSON parameter: a run writes a
 * dozen columns per node on every run, and building and binding a parameter per value cost more
 * than the insert itself.
 */
function upsertNodeRuns(rows: NodeRunValues[]): SQL {
  const records = rows.map((row) => ({
    run_id: row.runId,
    node_id: row.nodeId,
    node_type: row.nodeType,
    status: row.status,
    step: row.step ?? null,
    inputs: row.inputs ?? null,
    outputs: row.outputs ?? null,
    error: row.error ?? null,
    logs: row.logs ?? null,
    attempts: row.attempts ?? null,
    input_tokens: row.inputTokens ?? 0,
    output_tokens: row.outputTokens ?? 0,
    started_at: row.startedAt?.toISOString() ?? null,
    finished_at: row.finishedAt?.toISOString() ?? null,
    elapsed_ms: row.elapsedMs ?? null,
  }));
  return sql`
    insert into workflow_node_runs (run_id, node_id, node_type, status, step, inputs, outputs, error,
      logs, attempts, input_tokens, output_tokens, started_at, finished_at, elapsed_ms)
    select run_id, node_id, node_type, status, step, inputs, outputs, error,
      logs, attempts, input_tokens, output_tokens, started_at, finished_at, elapsed_ms
    from jsonb_to_recordset(${storableJson(records)}::jsonb) as r(run_id text, node_id text,
      node_type text, status text, step integer, inputs jsonb, outputs jsonb, error jsonb,
      logs jsonb, attempts jsonb, input_tokens integer, output_tokens integer, started_at timestamptz,
      finished_at timestamptz, elapsed_ms integer)
    on conflict (run_id, node_id) do update set
      status = excluded.status, step = excluded.step, inputs = excluded.inputs,
      outputs = excluded.outputs, error = excluded.error, logs = excluded.logs,
      attempts = excluded.attempts,
      input_tokens = excluded.input_tokens,
      output_tokens = excluded.output_tokens, started_at = excluded.started_at,
      finished_at = excluded.finished_at, elapsed_ms = excluded.elapsed_ms`;
}

export async function findRun(
  db: BuilderDb,
  workspaceId: string,
  runId: string,
): Promise<RunRow | undefined> {
  const [row] = await db
    .select()
    .from(workflowRuns)
    .where(and(eq(workflowRuns.id, runId), eq(workflowRuns.workspaceId, workspaceId)))
    .limit(1);
  return row;
}

export function findNodeRuns(db: BuilderDb, runId: string): Promise<NodeRunRow[]> {
  return db
    .select()
    .from(workflowNodeRuns)
    .where(eq(workflowNodeRuns.runId, runId))
    .orderBy(asc(sql`coalesce(${workflowNodeRuns.step}, 2147483647)`), asc(workflowNodeRuns.nodeId));
}

/** A workflow's runs, newest first; with `status`, only those in it (the filter holds across pages). */
export function listRuns(
  db: BuilderDb,
  workspaceId: string,
  workflowId: string,
  page: PageRequest & { status?: RunRow["status"] | undefined },
) {
  const newest = newestFirst(workflowRuns.id, page);
  return db
    .select()
    .from(workflowRuns)
    .where(
      and(
        eq(workflowRuns.workspaceId, workspaceId),
        eq(workflowRuns.workflowId, workflowId),
        page.status === undefined ? undefined : eq(workflowRuns.status, page.status),
        newest.olderThanCursor,
      ),
    )
    .orderBy(newest.order)
    .limit(newest.limit);
}

/** Keeps the runs this process executes visibly alive; answers those someone asked to cancel. */
export async function heartbeat(db: BuilderDb, runIds: string[], now: Date): Promise<string[]> {
  if (runIds.length === 0) return [];
  const rows = await db
    .update(workflowRuns)
    .set({ heartbeatAt: now })
    .where(and(inArray(workflowRuns.id, runIds), eq(workflowRuns.status, "running")))
    .returning({ id: workflowRuns.id, isCancelRequested: workflowRuns.isCancelRequested });
  return rows.filter((row) => row.isCancelRequested).map((row) => row.id);
}

export async function requestCancel(
  db: BuilderDb,
  workspaceId: string,
  runId: string,
): Promise<RunRow | undefined> {
  const [row] = await db
    .update(workflowRuns)
    .set({ isCancelRequested: true })
    .where(and(eq(workflowRuns.id, runId), eq(workflowRuns.workspaceId, workspaceId)))
    .returning();
  return row;
}

/** Takeovers a run gets before it is failed instead: a run that kills its process each time ends. */
export const MAX_RESUMES = 3;

/** Runs that are not resumed when their process dies: nested runs (their caller's node runs again) and those resumed too often. */
const isNotResumable = or(eq(workflowRuns.trigger, "tool"), gte(workflowRuns.resumes, MAX_RESUMES)) as SQL;

/**
 * Takes over up to `limit` runs whose process stopped (no heartbeat after `staleBefore`) and that can
 * resume: their heartbeat becomes now and `resumes` grows by one, in one conditional update, so of
 * two processes sweeping at once only one gets each run (the other's update finds the heartbeat fresh
 * and skips it). Answers the claimed runs.
 *
 * @example for (const run of await claimInterruptedRuns(deps, staleBefore, 50)) void runner.resume(run);
 */
export async function claimInterruptedRuns(
  { db, clock }: RunStoreDeps,
  staleBefore: Date,
  limit: number,
): Promise<RunRow[]> {
  const stale = and(
    eq(workflowRuns.status, "running"),
    lte(workflowRuns.heartbeatAt, staleBefore),
    not(isNotResumable),
  );
  const due = db
    .select({ id: workflowRuns.id })
    .from(workflowRuns)
    .where(stale)
    .orderBy(asc(workflowRuns.heartbeatAt))
    .limit(limit)
    .for("update", { skipLocked: true });
  return db
    .update(workflowRuns)
    .set({ heartbeatAt: clock.now(), resumes: sql`${workflowRuns.resumes} + 1` })
    .where(and(inArray(workflowRuns.id, due), stale))
    .returning();
}

const interrupted: RunError = {
  code: "run_interrupted",
  message: "The process running this workflow stopped before it finished.",
};

/**
 * Marks runs whose process stopped (no heartbeat after `staleBefore`) and that cannot resume as
 * failed, so no run stays "running" forever after a crash, each with its `workflow.run.failed`
 * event. Answers the runs it closed.
 *
 * @example const closed = await failInterruptedRuns(deps, new Date(Date.now() - 60_000));
 */
export function failInterruptedRuns(deps: RunStoreDeps, staleBefore: Date): Promise<RunRow[]> {
  return failRunsWhere(
    deps,
    and(eq(workflowRuns.status, "running"), lte(workflowRuns.heartbeatAt, staleBefore), isNotResumable),
    interrupted,
  );
}

/**
 * Fails one running run with `error` (its running nodes too) and emits its event.
 *
 * @example await failRun(deps, run.id, { code: "run_interrupted", message: "…" });
 */
export function failRun(deps: RunStoreDeps, runId: string, error: RunError): Promise<RunRow[]> {
  return failRunsWhere(deps, and(eq(workflowRuns.id, runId), eq(workflowRuns.status, "running")), error);
}

async function failRunsWhere(
  { db, clock }: RunStoreDeps,
  where: SQL | undefined,
  error: RunError,
): Promise<RunRow[]> {
  const now = clock.now();
  return db.transaction(async (tx) => {
    const rows = await tx
      .update(workflowRuns)
      .set({ status: "failed", error, finishedAt: now })
      .where(where)
      .returning();
    if (rows.length === 0) return [];
    await tx
      .update(workflowNodeRuns)
      .set({ status: "failed", error, finishedAt: now })
      .where(
        and(
          inArray(
            workflowNodeRuns.runId,
            rows.map((row) => row.id),
          ),
          eq(workflowNodeRuns.status, "running"),
        ),
      );
    for (const row of rows) await emitRunEvent({ db: tx, clock }, row);
    return rows;
  });
}
