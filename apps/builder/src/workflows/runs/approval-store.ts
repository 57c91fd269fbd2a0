import type { Clock } from "@app/core";
import { newestFirst, type PageRequest } from "@app/db";
import { type ApprovalDecision, httpDataSchema, type RunError, toolDataSchema } from "@app/workflow";
import { and, asc, eq, inArray, lte, ne, sql } from "drizzle-orm";
import type { BuilderDb } from "../../db/index.ts";
import { WorkflowErrors } from "../errors.ts";
import {
  type ApprovalRow,
  type RunRow,
  workflowApprovals,
  workflowNodeRuns,
  workflowRuns,
  workflows,
} from "../schema.ts";
import { emitRunEvent } from "./run-store.ts";

type StoreDeps = { db: BuilderDb; clock: Clock };

/** A run's approvals, in the order they were asked for. */
export function findApprovals(db: BuilderDb, runId: string): Promise<ApprovalRow[]> {
  return db
    .select()
    .from(workflowApprovals)
    .where(eq(workflowApprovals.runId, runId))
    .orderBy(asc(workflowApprovals.requestedAt), asc(workflowApprovals.nodeId));
}

/**
 * The decisions an execution of a run goes on with, by node id: approved (with the edited request, if
 * any) and rejected nodes, by a person or by their timeout.
 *
 * @example runWorkflow({ …, approvals: approvalDecisions(await findApprovals(db, run.id)) });
 */
export function approvalDecisions(rows: ApprovalRow[]): Map<string, ApprovalDecision> {
  const decisions = new Map<string, ApprovalDecision>();
  for (const row of rows) {
    if (row.status === "approved") {
      decisions.set(
        row.nodeId,
        row.decidedInput === null
          ? { decision: "approve" }
          : { decision: "approve", input: row.decidedInput },
      );
    } else if (row.status === "rejected") {
      decisions.set(row.nodeId, {
        decision: "reject",
        message:
          row.decidedBy === null
            ? `No decision on node ${row.nodeId} within its approval timeout: rejected (on_timeout).`
            : `The request of node ${row.nodeId} was rejected.`,
      });
    }
  }
  return decisions;
}

export interface Decision {
  workspaceId: string;
  runId: string;
  nodeId: string;
  decision: "approve" | "reject";
  /** The edited request an approval runs instead of the proposed one. */
  input?: unknown;
  userId: string;
}

/**
 * Records a person's decision on a waiting run's pending node and hands the run back to execution
 * (`running`, heartbeat now), in one transaction; answers the run as it now is. Throws RUN_NOT_FOUND
 * for an unknown or another workspace's run, RUN_NOT_WAITING, APPROVAL_NOT_PENDING (no such node
 * pending: never asked for, or decided already; of two racing decisions one gets this), and
 * INVALID_APPROVAL_INPUT for an edited request that is not one the node can send.
 *
 * @example const run = await decideApproval(deps, { workspaceId, runId, nodeId: "send", decision: "approve", userId });
 */
export function decideApproval({ db, clock }: StoreDeps, decision: Decision): Promise<RunRow> {
  const now = clock.now();
  return db.transaction(async (tx) => {
    const [run] = await tx
      .select()
      .from(workflowRuns)
      .where(and(eq(workflowRuns.id, decision.runId), eq(workflowRuns.workspaceId, decision.workspaceId)))
      .for("update");
    if (!run) throw WorkflowErrors.RUN_NOT_FOUND();
    if (run.status !== "waiting") {
      throw WorkflowErrors.RUN_NOT_WAITING({
        message: `The run is ${run.status}, not waiting for an approval.`,
      });
    }
    const [approval] = await tx
      .select()
      .from(workflowApprovals)
      .where(
        and(
          eq(workflowApprovals.runId, run.id),
          eq(workflowApprovals.nodeId, decision.nodeId),
          eq(workflowApprovals.status, "pending"),
        ),
      );
    if (!approval) {
      throw WorkflowErrors.APPROVAL_NOT_PENDING({
        message: `Node ${decision.nodeId} of this run has no pending approval.`,
        param: "node_id",
      });
    }
    const edited =
      decision.decision === "approve" && decision.input !== undefined
        ? checkedInput(approval.nodeType, decision.input)
        : null;
    await tx
      .update(workflowApprovals)
      .set({
        status: decision.decision === "approve" ? "approved" : "rejected",
        decidedInput: edited,
        decidedAt: now,
        decidedBy: decision.userId,
      })
      .where(eq(workflowApprovals.id, approval.id));
    const [resumed] = await tx
      .update(workflowRuns)
      .set({ status: "running", heartbeatAt: now })
      .where(and(eq(workflowRuns.id, run.id), eq(workflowRuns.status, "waiting")))
      .returning();
    if (!resumed) throw WorkflowErrors.RUN_NOT_WAITING();
    return resumed;
  });
}

/** An edited request, checked against the node type's request shape (as its `data` is). */
function checkedInput(nodeType: string, input: unknown): unknown {
  const schema = nodeType === "http" ? httpDataSchema : toolDataSchema;
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw WorkflowErrors.INVALID_APPROVAL_INPUT({
    message: `The edited input is not a valid ${nodeType} request: ${issue ? `${issue.path.join(".") || "input"}: ${issue.message}` : "invalid"}.`,
    param: issue && issue.path.length > 0 ? `input.${issue.path.join(".")}` : "input",
  });
}

/** What the sweep did with approvals past their timeout. */
export interface ExpiredApprovals {
  /** Runs whose timed-out node was rejected (`on_timeout: "reject"`): back to `running`, to go on here. */
  toContinue: RunRow[];
  /** Runs failed with `approval_timed_out` (`on_timeout: "fail"`). */
  failed: RunRow[];
}

/**
 * Decides the pending approvals of waiting runs whose `expires_at` has passed, by their `on_timeout`:
 * `reject` records a rejection and hands the run back to execution (answered in `toContinue`, for
 * the caller to go on with), `fail` fails the run with `approval_timed_out` and its
 * `workflow.run.failed` event. Each is conditional, so of two processes sweeping at once only one
 * decides an approval.
 *
 * @example const { toContinue } = await expireApprovals(deps, 50); for (const run of toContinue) void runner.resume(run);
 */
export async function expireApprovals(deps: StoreDeps, limit: number): Promise<ExpiredApprovals> {
  const { db, clock } = deps;
  const now = clock.now();
  const due = await db
    .select({ approval: workflowApprovals })
    .from(workflowApprovals)
    .innerJoin(workflowRuns, eq(workflowRuns.id, workflowApprovals.runId))
    .where(
      and(
        eq(workflowApprovals.status, "pending"),
        lte(workflowApprovals.expiresAt, now),
        eq(workflowRuns.status, "waiting"),
      ),
    )
    .orderBy(asc(workflowApprovals.expiresAt))
    .limit(limit);
  const result: ExpiredApprovals = { toContinue: [], failed: [] };
  const decided = new Set<string>();
  for (const { approval } of due) {
    // One decision per run and sweep: the run is no longer waiting after it.
    if (decided.has(approval.runId)) continue;
    decided.add(approval.runId);
    if (approval.onTimeout === "fail") {
      const failed = await failOnTimeout(deps, approval, now);
      if (failed) result.failed.push(failed);
      continue;
    }
    const run = await db
      .transaction(async (tx) => {
        const [taken] = await tx
          .update(workflowApprovals)
          .set({ status: "rejected", decidedAt: now, decidedBy: null })
          .where(and(eq(workflowApprovals.id, approval.id), eq(workflowApprovals.status, "pending")))
          .returning({ id: workflowApprovals.id });
        if (!taken) return undefined;
        const [resumed] = await tx
          .update(workflowRuns)
          .set({ status: "running", heartbeatAt: now })
          .where(and(eq(workflowRuns.id, approval.runId), eq(workflowRuns.status, "waiting")))
          .returning();
        if (!resumed) throw new NotDecided();
        return resumed;
      })
      .catch((error: unknown) => {
        if (isRollback(error)) return undefined;
        throw error;
      });
    if (run) result.toContinue.push(run);
  }
  return result;
}

/** Fails a waiting run whose approval timed out under `on_timeout: "fail"`; undefined if another process did. */
function failOnTimeout(
  { db, clock }: StoreDeps,
  approval: ApprovalRow,
  now: Date,
): Promise<RunRow | undefined> {
  const error: RunError = {
    code: "approval_timed_out",
    message: `No decision on node ${approval.nodeId} within its approval timeout; the run failed (on_timeout: fail).`,
    node_id: approval.nodeId,
  };
  return db
    .transaction(async (tx) => {
      const [taken] = await tx
        .update(workflowApprovals)
        .set({ status: "timed_out", decidedAt: now, decidedBy: null })
        .where(and(eq(workflowApprovals.id, approval.id), eq(workflowApprovals.status, "pending")))
        .returning({ id: workflowApprovals.id });
      if (!taken) return undefined;
      const row = await endWaitingRun(tx, approval.runId, "failed", error, now);
      if (!row) throw new NotDecided();
      await tx
        .update(workflowNodeRuns)
        .set({ status: "failed", error: { code: error.code, message: error.message }, finishedAt: now })
        .where(and(eq(workflowNodeRuns.runId, approval.runId), eq(workflowNodeRuns.nodeId, approval.nodeId)));
      if (row) await emitRunEvent({ db: tx, clock }, row);
      return row;
    })
    .catch((error: unknown) => {
      if (isRollback(error)) return undefined;
      throw error;
    });
}

/**
 * Cancels a waiting run: it ends `cancelled`, its pending approvals are cancelled, its
 * `workflow.run.failed` event (status cancelled) is emitted. Answers the run, or undefined when it was
 * no longer waiting.
 */
export function cancelWaitingRun({ db, clock }: StoreDeps, runId: string): Promise<RunRow | undefined> {
  const now = clock.now();
  return db.transaction(async (tx) => {
    const row = await endWaitingRun(
      tx,
      runId,
      "cancelled",
      { code: "run_cancelled", message: "The run was cancelled." },
      now,
    );
    if (row) await emitRunEvent({ db: tx, clock }, row);
    return row;
  });
}

/** Ends a waiting run (failed or cancelled): its other pending approvals are cancelled and the nodes it waited at skipped. */
async function endWaitingRun(
  tx: Parameters<Parameters<BuilderDb["transaction"]>[0]>[0],
  runId: string,
  status: "failed" | "cancelled",
  error: RunError,
  now: Date,
): Promise<RunRow | undefined> {
  const [row] = await tx
    .update(workflowRuns)
    .set({
      status,
      error,
      finishedAt: now,
      elapsedMs: sql`greatest(0, round(extract(epoch from (${now.toISOString()}::timestamptz - ${workflowRuns.startedAt})) * 1000))::integer`,
    })
    .where(and(eq(workflowRuns.id, runId), eq(workflowRuns.status, "waiting")))
    .returning();
  if (!row) return undefined;
  await tx
    .update(workflowApprovals)
    .set({ status: "cancelled", decidedAt: now })
    .where(and(eq(workflowApprovals.runId, runId), eq(workflowApprovals.status, "pending")));
  await tx
    .update(workflowNodeRuns)
    .set({ status: "skipped" })
    .where(
      and(
        eq(workflowNodeRuns.runId, runId),
        eq(workflowNodeRuns.status, "waiting"),
        ...(error.node_id === undefined ? [] : [ne(workflowNodeRuns.nodeId, error.node_id)]),
      ),
    );
  return row;
}

/** Undoes a timeout's decision whose run another process took meanwhile. */
class NotDecided extends Error {}

function isRollback(error: unknown): boolean {
  return error instanceof NotDecided;
}

/**
 * The workspace's pending approvals (the inbox), newest first, with their workflow's name; paged by
 * `cursor` (an approval id).
 *
 * @example const rows = await listPendingApprovals(db, workspaceId, { limit: 20 });
 */
export function listPendingApprovals(db: BuilderDb, workspaceId: string, page: PageRequest) {
  const newest = newestFirst(workflowApprovals.id, page);
  return db
    .select({
      id: workflowApprovals.id,
      runId: workflowApprovals.runId,
      workflowId: workflowApprovals.workflowId,
      workflowName: workflows.name,
      nodeId: workflowApprovals.nodeId,
      nodeType: workflowApprovals.nodeType,
      title: workflowApprovals.title,
      input: workflowApprovals.input,
      requestedAt: workflowApprovals.requestedAt,
      expiresAt: workflowApprovals.expiresAt,
      onTimeout: workflowApprovals.onTimeout,
    })
    .from(workflowApprovals)
    .innerJoin(workflows, eq(workflows.id, workflowApprovals.workflowId))
    .where(
      and(
        eq(workflowApprovals.workspaceId, workspaceId),
        eq(workflowApprovals.status, "pending"),
        newest.olderThanCursor,
      ),
    )
    .orderBy(newest.order)
    .limit(newest.limit);
}

/** The pending approvals of some runs, by run id (a page of runs shows what each waits for). */
export async function pendingApprovalsOf(
  db: BuilderDb,
  runIds: string[],
): Promise<Map<string, ApprovalRow[]>> {
  const byRun = new Map<string, ApprovalRow[]>();
  if (runIds.length === 0) return byRun;
  const rows = await db
    .select()
    .from(workflowApprovals)
    .where(and(inArray(workflowApprovals.runId, runIds), eq(workflowApprovals.status, "pending")))
    .orderBy(asc(workflowApprovals.requestedAt), asc(workflowApprovals.nodeId));
  for (const row of rows) byRun.set(row.runId, [...(byRun.get(row.runId) ?? []), row]);
  return byRun;
}
