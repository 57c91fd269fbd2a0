import { newId } from "@app/core";
import { annotateSpan, withSpan } from "@app/observability";
import {
  type ApprovalDecision,
  type CompiledWorkflow,
  compileWorkflow,
  type NodeExecutors,
  type NodeFailedEvent,
  type NodeFinishedEvent,
  type RecordedNode,
  type RunError,
  type RunRecorder,
  type RunResult,
  runWorkflow,
  type ToolOutputs,
  type WorkflowGraph,
  WorkflowGraphError,
} from "@app/workflow";
import type { Deps } from "../../deps.ts";
import type { NodeRunRow, RunRow, RunTrigger, WorkflowRow } from "../schema.ts";
import type { ToolRegistry } from "../tools/registry.ts";
import { approvalDecisions, expireApprovals, findApprovals } from "./approval-store.ts";
import { attemptJson, pendingJson } from "./run-json.ts";
import {
  claimInterruptedRuns,
  failInterruptedRuns,
  failRun,
  findNodeRuns,
  heartbeat,
  insertRuns,
  type NewRun,
  type NodeRunValues,
  recordRunEnd,
  saveNodeRuns,
} from "./run-store.ts";

/** A Server-Sent Event of a run, as the API streams it. */
export interface RunStreamEvent {
  event: "run_started" | "node_started" | "node_finished" | "node_skipped" | "node_waiting" | "run_finished";
  data: Record<string, unknown>;
}

export interface RunRequest {
  workspaceId: string;
  /** The workflow as it runs: its draft row, or `workflowAtVersion` of a published version. */
  workflow: WorkflowRow;
  /** The published version `workflow` holds; absent for the draft. */
  version?: number | undefined;
  /** An app's end user who asked for the run. */
  endUser?: { appId: string; endUserId: string } | undefined;
  inputs: Record<string, unknown>;
  trigger: RunTrigger;
  /** How deeply this run is nested in run_workflow tools (0 for a top-level run). */
  depth?: number;
  onEvent?: (event: RunStreamEvent) => void;
  /** Write the run row before the first node starts (runs others watch: streams, background triggers). */
  persistAtStart?: boolean;
  /** Called once the run row exists; only with `persistAtStart`. */
  onRunCreated?: (runId: string) => void;
  /** A replay: the run it replays and the outcomes it keeps from it (they are not executed again). */
  replay?: { of: string; recorded: ReadonlyMap<string, RecordedNode> } | undefined;
  /** A run row already written in `running` (a schedule's tick, claimed with it): executed, not inserted. */
  claimed?: ClaimedRun;
}

/** A run that has just failed, as what follows a failure (its error workflow) needs it. */
export interface FailedRun {
  id: string;
  workspaceId: string;
  workflowId: string;
  trigger: RunTrigger;
  graph: WorkflowGraph;
  error: RunError | null;
}

/** A run row a schedule's claim wrote, with the tick it fired for. */
export interface ClaimedRun {
  id: string;
  startedAt: Date;
  scheduleId: string;
  scheduledFor: Date;
}

/** What the runner needs from the rest of the builder to execute nodes. */
export interface NodeServices {
  /** The executors of one run; `close` when the run has ended (it ends the run's sandbox session). */
  executors(workspaceId: string, depth: number): { executors: NodeExecutors; close(): void };
  tools: ToolRegistry;
}

const HEARTBEAT_MS = 5_000;
/** A run still going after this long gets its row written, so a crash cannot make it vanish. */
const PERSIST_AFTER_MS = 100;
const COMPILED_CACHE_SIZE = 500;
/** Runs one sweep takes over at most; the next sweep (a heartbeat later) takes the rest. */
const CLAIM_BATCH = 50;

/** What one execution of a run needs, whether it starts, resumes or replays. */
interface Execution {
  row: NewRun;
  compiled: CompiledWorkflow;
  depth: number;
  recorded?: ReadonlyMap<string, RecordedNode> | undefined;
  /** Decisions on the nodes that require approval (a run going on after one). */
  approvals?: ReadonlyMap<string, ApprovalDecision> | undefined;
  /** The run row is from an earlier execution (resumed, or going on after a decision): its start is kept. */
  keepsStart?: boolean;
  onEvent?: ((event: RunStreamEvent) => void) | undefined;
  /** The run row's write, once started (at once for a resumed run, whose row exists). */
  persisted: Promise<void> | undefined;
  persist: () => Promise<void>;
  timer?: NodeJS.Timeout | undefined;
}

/**
 * Executes workflows and records their runs: the run row once it has lasted 100 ms (at once for
 * watched runs), each node's outcome as it completes once the row exists (a fast run writes all of
 * them with its end), a heartbeat while it runs, cancellation from any process, and the takeover of
 * runs whose process died: a live process claims each one and resumes it from its first unfinished
 * node (docs/workflows.md, "Durability").
 */
export class WorkflowRunner {
  private readonly active = new Map<string, AbortController>();
  private readonly compiled = new Map<string, CompiledWorkflow>();
  /** Error workflows being run, and the runs of those that ended since `errorWorkflowsSettled` last asked. */
  private readonly errorWorkflows = new Set<Promise<void>>();
  private readonly errorWorkflowRuns: string[] = [];
  /** What follows a failed run: its error workflow (app.ts sets it), answering that run's id. */
  onRunFailed: ((run: FailedRun) => Promise<string | undefined>) | undefined;
  private timer: NodeJS.Timeout | undefined;
  private readonly leaseMs: number;
  private readonly heartbeatMs: number;

  readonly tools: ToolRegistry;

  constructor(
    private readonly deps: Deps,
    private readonly services: NodeServices,
  ) {
    this.tools = services.tools;
    this.leaseMs = deps.config.workflowRunLeaseMs;
    // Several heartbeats fit in a lease, so one slow round trip does not make a live run look dead.
    this.heartbeatMs = Math.min(HEARTBEAT_MS, Math.floor(this.leaseMs / 4));
  }

  /**
   * Compiles a stored graph against the tools available now; throws WorkflowGraphError when it cannot
   * run. Compiled graphs are kept per workflow version, since validation costs more than a fast run.
   */
  compile(workflow: WorkflowRow, version?: number): CompiledWorkflow {
    // A version never changes; the draft is known by its last write.
    const key = version ? `${workflow.id}#${version}` : `${workflow.id}@${workflow.updatedAt.getTime()}`;
    const cached = this.compiled.get(key);
    if (cached) return cached;
    const compiled = compileWorkflow(workflow.graph, { tools: this.tools.outputs() });
    if (this.compiled.size >= COMPILED_CACHE_SIZE) {
      const oldest = this.compiled.keys().next().value;
      if (oldest !== undefined) this.compiled.delete(oldest);
    }
    this.compiled.set(key, compiled);
    return compiled;
  }

  toolOutputs(): ToolOutputs {
    return this.tools.outputs();
  }

  /**
   * Runs a workflow to the end and answers its record. The run row is written when the run has taken
   * longer than `PERSIST_AFTER_MS` (or at once with `persistAtStart`), so a fast blocking run costs one
   * write at its end; anything a crash could cut off is on record by then.
   */
  async run(request: RunRequest): Promise<RunResult> {
    const { db, clock } = this.deps;
    const { claimed } = request;
    const startedAt = claimed?.startedAt ?? clock.now();
    const runId = claimed?.id ?? newId("run", startedAt.getTime());
    annotateSpan({ "run.id": runId, "workspace.id": request.workspaceId });
    const row: NewRun = {
      id: runId,
      workspaceId: request.workspaceId,
      workflowId: request.workflow.id,
      trigger: request.trigger,
      graph: request.workflow.graph,
      inputs: request.inputs,
      startedAt,
      version: request.version ?? null,
      appId: request.endUser?.appId ?? null,
      endUserId: request.endUser?.endUserId ?? null,
      scheduleId: claimed?.scheduleId ?? null,
      scheduledFor: claimed?.scheduledFor ?? null,
      replayOf: request.replay?.of ?? null,
      resumes: 0,
    };
    let compiled: CompiledWorkflow;
    try {
      // A replay runs the graph its original ran, which may be neither the draft nor cached.
      compiled = request.replay
        ? compileWorkflow(request.workflow.graph, { tools: this.tools.outputs() })
        : this.compile(request.workflow, request.version);
    } catch (error) {
      // Other triggers refuse before a run exists (checkRunnable); a claimed tick's run is on record
      // already and must end, with the reason.
      if (!claimed || !(error instanceof WorkflowGraphError)) throw error;
      return this.failClaimed(row, { code: error.code, message: error.message });
    }
    const recorder = new DurableRecorder(
      this.deps,
      runId,
      request.workflow.id,
      request.onEvent,
      () => execution.persisted,
    );
    const execution: Execution = {
      row,
      compiled,
      depth: request.depth ?? 0,
      recorded: request.replay?.recorded,
      onEvent: request.onEvent,
      persisted: claimed ? Promise.resolve() : undefined,
      persist: () => {
        execution.persisted ??= insertRuns(db, [row]);
        return execution.persisted;
      },
    };
    if (request.persistAtStart) {
      await execution.persist();
      request.onRunCreated?.(runId);
    } else if (!claimed) {
      execution.timer = setTimeout(() => {
        void execution
          .persist()
          .then(() => recorder.flush())
          .catch((error: unknown) =>
            this.deps.logger.error({ err: error, run_id: runId }, "run record failed"),
          );
      }, PERSIST_AFTER_MS);
    }
    return this.execute(execution, recorder);
  }

  /**
   * Resumes a run a dead process left, or one going on after a decision on its approvals (the
   * caller set it back to `running`): the node outcomes it recorded are kept (not executed again),
   * the decided approvals are applied, and the run goes on from its first unfinished node, with the
   * graph and inputs stored on the run.
   */
  async resume(run: RunRow, reason: "takeover" | "decision" = "takeover"): Promise<RunResult | undefined> {
    let compiled: CompiledWorkflow;
    try {
      compiled = compileWorkflow(run.graph, { tools: this.tools.outputs() });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const failed = await failRun(this.deps, run.id, {
        code: "run_interrupted",
        message: `The process running this workflow stopped, and the run cannot resume here: ${message}`,
      });
      for (const row of failed) this.failed(row);
      return undefined;
    }
    const [nodeRuns, approvals] = await Promise.all([
      findNodeRuns(this.deps.db, run.id),
      findApprovals(this.deps.db, run.id),
    ]);
    const recorded = recordedNodes(nodeRuns);
    if (reason === "takeover") {
      this.deps.logger.info(
        { run_id: run.id, recorded: recorded.size, resumes: run.resumes },
        "resuming workflow run",
      );
    }
    const persisted = Promise.resolve();
    const execution: Execution = {
      row: run,
      compiled,
      depth: 0,
      recorded,
      approvals: approvalDecisions(approvals),
      keepsStart: true,
      persisted,
      persist: () => persisted,
    };
    const recorder = new DurableRecorder(this.deps, run.id, run.workflowId, undefined, () => persisted);
    return this.execute(execution, recorder);
  }

  private async execute(execution: Execution, recorder: DurableRecorder): Promise<RunResult> {
    const { row, compiled } = execution;
    const runId = row.id;
    const controller = new AbortController();
    this.active.set(runId, controller);
    const nodes = this.services.executors(row.workspaceId, execution.depth);
    try {
      const engineResult = await withSpan(
        "workflow.run",
        { "run.id": runId, "workspace.id": row.workspaceId, "workflow.id": row.workflowId },
        () =>
          runWorkflow({
            workflow: compiled,
            runId,
            inputs: row.inputs,
            executors: nodes.executors,
            recorder,
            clock: this.deps.clock,
            signal: controller.signal,
            missingValues: "empty",
            ...(execution.recorded ? { recorded: execution.recorded } : {}),
            ...(execution.approvals ? { approvals: execution.approvals } : {}),
          }),
      );
      // A resumed run keeps the start its first process gave it.
      const result = execution.keepsStart
        ? {
            ...engineResult,
            started_at: row.startedAt,
            elapsed_ms: engineResult.finished_at.getTime() - row.startedAt.getTime(),
          }
        : engineResult;
      clearTimeout(execution.timer);
      if (execution.persisted) await execution.persisted;
      await recorder.flushed();
      const deliveries = await recordRunEnd(this.deps, row, result, recorder.takePending(), {
        rowExists: execution.persisted !== undefined,
      });
      // A wake costs the engine a query; most workspaces have no webhook listening.
      if (deliveries > 0) this.deps.deliveries?.wake();
      if (result.status === "waiting") await this.pendingAsStored(result);
      if (result.status === "failed") this.failed({ ...row, error: result.error });
      execution.onEvent?.({ event: "run_finished", data: runFinishedData(result) });
      return result;
    } finally {
      nodes.close();
      clearTimeout(execution.timer);
      recorder.close();
      this.active.delete(runId);
    }
  }

  /**
   * A waiting result's `pending` as stored: a node paused at again after another node's decision keeps
   * the time it was first asked for (and so its timeout).
   */
  private async pendingAsStored(result: RunResult): Promise<void> {
    const stored = new Map(
      (await findApprovals(this.deps.db, result.run_id)).map((row) => [row.nodeId, row] as const),
    );
    for (const pending of result.pending) {
      const row = stored.get(pending.node_id);
      if (!row) continue;
      pending.requested_at = row.requestedAt;
      pending.expires_at = row.expiresAt;
    }
  }

  /**
   * Decides the approvals past their `approval_timeout_s` (the sweep does this every heartbeat; tests
   * call it after moving a manual clock): `on_timeout: "fail"` fails the run, `"reject"` rejects the
   * node and the run goes on here. Resolves once those runs have ended or paused again.
   */
  async expireApprovals(): Promise<void> {
    const { toContinue, failed } = await expireApprovals(this.deps, CLAIM_BATCH);
    if (failed.length > 0) this.deps.deliveries?.wake();
    for (const row of failed) this.failed(row);
    await Promise.all(
      toContinue.map((run) =>
        this.resume(run, "decision").catch((error: unknown) =>
          this.deps.logger.error({ err: error, run_id: run.id }, "a run after its approval timed out failed"),
        ),
      ),
    );
  }

  /**
   * A run failed: its workflow's error workflow starts in the background (at most once: a process
   * that dies right after the failure was recorded starts none). `errorWorkflowsSettled` waits for them.
   */
  private failed(run: FailedRun): void {
    const started: Promise<void> = (this.onRunFailed?.(run) ?? Promise.resolve(undefined))
      .then(
        (runId) => {
          if (runId) this.errorWorkflowRuns.push(runId);
        },
        (error: unknown) => {
          this.deps.logger.error({ err: error, run_id: run.id }, "the error workflow did not start");
        },
      )
      .finally(() => this.errorWorkflows.delete(started));
    this.errorWorkflows.add(started);
  }

  /**
   * Resolves with the ids of the error workflow runs started since the last call, once they have
   * ended (tests read them).
   */
  async errorWorkflowsSettled(): Promise<string[]> {
    while (this.errorWorkflows.size > 0) await Promise.all([...this.errorWorkflows]);
    return this.errorWorkflowRuns.splice(0);
  }

  /** Ends a claimed run that cannot start (its graph no longer compiles) as failed, with its event. */
  private async failClaimed(row: NewRun, error: { code: string; message: string }): Promise<RunResult> {
    const finishedAt = this.deps.clock.now();
    const result: RunResult = {
      run_id: row.id,
      status: "failed",
      started_at: row.startedAt,
      finished_at: finishedAt,
      elapsed_ms: finishedAt.getTime() - row.startedAt.getTime(),
      steps: 0,
      outputs: null,
      error,
      usage: { total_tokens: 0 },
      pending: [],
      nodes: [],
    };
    const deliveries = await recordRunEnd(this.deps, row, result, [], { rowExists: true });
    if (deliveries > 0) this.deps.deliveries?.wake();
    this.failed({ ...row, error });
    return result;
  }

  /** Cancels a run running in this process; answers false when it is not here. */
  cancelLocal(runId: string): boolean {
    const controller = this.active.get(runId);
    if (!controller) return false;
    controller.abort(new Error("cancelled"));
    return true;
  }

  /**
   * Closes runs left "running" by a dead process, then keeps this process's runs alive. The only
   * process on its database closes every run it finds: none of them can still be going.
   */
  async start(): Promise<void> {
    await this.sweep(this.deps.isSoleProcess ? 0 : this.leaseMs);
    this.timer = setInterval(() => {
      void this.tick().catch((error: unknown) =>
        this.deps.logger.error({ err: error }, "workflow heartbeat failed"),
      );
    }, this.heartbeatMs);
    this.timer.unref();
  }

  /** Runs this process is executing (started here or taken over). */
  activeRuns(): string[] {
    return [...this.active.keys()];
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    for (const controller of this.active.values()) controller.abort(new Error("the service is stopping"));
  }

  private async tick(): Promise<void> {
    const toCancel = await heartbeat(this.deps.db, [...this.active.keys()], this.deps.clock.now());
    for (const runId of toCancel) this.cancelLocal(runId);
    await this.sweep();
  }

  /**
   * Takes over the runs that have been silent (no heartbeat) for `silentForMs` or longer and resumes
   * them here; the claim is one conditional update, so of two processes sweeping at once only one
   * gets each run. Runs that cannot resume (a nested run, whose caller's node runs again; one that
   * was resumed too often) are failed with `run_interrupted` instead.
   */
  private async sweep(silentForMs = this.leaseMs): Promise<void> {
    const staleBefore = new Date(this.deps.clock.now().getTime() - silentForMs);
    const closed = await failInterruptedRuns(this.deps, staleBefore);
    if (closed.length > 0) {
      this.deps.logger.warn({ runs: closed.length }, "marked interrupted workflow runs as failed");
      this.deps.deliveries?.wake();
      for (const row of closed) this.failed(row);
    }
    const claimed = await claimInterruptedRuns(this.deps, staleBefore, CLAIM_BATCH);
    for (const run of claimed) {
      void this.resume(run).catch((error: unknown) =>
        this.deps.logger.error({ err: error, run_id: run.id }, "resuming a workflow run failed"),
      );
    }
    // Not awaited: the runs that go on after a timeout run in the background like resumed ones.
    void this.expireApprovals().catch((error: unknown) =>
      this.deps.logger.error({ err: error }, "deciding timed-out approvals failed"),
    );
  }
}

/**
 * Streams every event at once and writes each node's outcome as it completes, once the run row
 * exists (one statement per completed node, with the records of the nodes started since); before
 * that the records wait in memory and a fast run writes them all with its end.
 */
class DurableRecorder implements RunRecorder {
  private readonly pending = new Map<string, NodeRunValues>();
  private flushing: Promise<void> = Promise.resolve();
  private isFlushQueued = false;

  constructor(
    private readonly deps: Deps,
    private readonly runId: string,
    private readonly workflowId: string,
    private readonly emit: ((event: RunStreamEvent) => void) | undefined,
    /** The run row's write, once started; node records wait for it (they reference the row). */
    private readonly runPersisted: () => Promise<void> | undefined,
  ) {}

  onRunStarted: RunRecorder["onRunStarted"] = (event) => {
    this.emit?.({
      event: "run_started",
      data: {
        run_id: event.run_id,
        workflow_id: this.workflowId,
        started_at: event.started_at.toISOString(),
        inputs: event.inputs,
      },
    });
  };

  onNodeStarted: RunRecorder["onNodeStarted"] = (event) => {
    this.track({
      runId: this.runId,
      nodeId: event.node_id,
      nodeType: event.node_type,
      status: "running",
      step: event.step,
      inputs: event.inputs,
      startedAt: event.started_at,
    });
    this.emit?.({
      event: "node_started",
      data: {
        run_id: event.run_id,
        node_id: event.node_id,
        node_type: event.node_type,
        title: event.title,
        step: event.step,
        inputs: event.inputs,
      },
    });
  };

  onNodeFinished: RunRecorder["onNodeFinished"] = (event) => this.ended(event);
  onNodeFailed: RunRecorder["onNodeFailed"] = (event) => this.ended(event);

  onNodeWaiting: RunRecorder["onNodeWaiting"] = (event) => {
    this.track({
      runId: this.runId,
      nodeId: event.node_id,
      nodeType: event.node_type,
      status: "waiting",
      step: event.step,
      inputs: event.inputs,
      startedAt: event.requested_at,
    });
    this.emit?.({
      event: "node_waiting",
      data: {
        run_id: event.run_id,
        node_id: event.node_id,
        node_type: event.node_type,
        title: event.title,
        step: event.step,
        inputs: event.inputs,
      },
    });
  };

  onNodeSkipped: RunRecorder["onNodeSkipped"] = (event) => {
    this.track({ runId: this.runId, nodeId: event.node_id, nodeType: event.node_type, status: "skipped" });
    this.emit?.({
      event: "node_skipped",
      data: { run_id: event.run_id, node_id: event.node_id, node_type: event.node_type, title: event.title },
    });
  };

  takePending(): NodeRunValues[] {
    const rows = [...this.pending.values()];
    this.pending.clear();
    return rows;
  }

  close(): void {
    this.pending.clear();
  }

  private ended(event: NodeFinishedEvent | NodeFailedEvent): void {
    const usage = event.status === "succeeded" ? (event.usage ?? null) : null;
    this.track({
      runId: this.runId,
      nodeId: event.node_id,
      nodeType: event.node_type,
      status: event.status,
      step: event.step,
      inputs: event.inputs,
      outputs: event.outputs,
      error: event.status === "failed" ? event.error : null,
      logs: event.logs ?? null,
      attempts: event.attempts?.map(attemptJson) ?? null,
      inputTokens: usage?.input_tokens ?? 0,
      outputTokens: usage?.output_tokens ?? 0,
      startedAt: event.started_at,
      finishedAt: event.finished_at,
      elapsedMs: Math.round(event.elapsed_ms),
    });
    this.emit?.({
      event: "node_finished",
      data: {
        run_id: event.run_id,
        node_id: event.node_id,
        node_type: event.node_type,
        title: event.title,
        status: event.status,
        step: event.step,
        outputs: event.outputs,
        elapsed_ms: Math.round(event.elapsed_ms * 100) / 100,
        tokens: usage ?? { total_tokens: 0 },
        error: event.status === "failed" ? event.error : null,
        logs: event.logs ?? null,
        attempts: event.attempts?.map(attemptJson) ?? null,
        reused: event.reused,
        ...(event.status === "failed" ? { continued: event.continued } : {}),
      },
    });
    // Not awaited by the engine: the stream and the next nodes go on while the write is under way
    // (the record is no later for it; docs/workflows.md, "Durability", has the cost).
    void this.flush();
  }

  private track(row: NodeRunValues): void {
    this.pending.set(row.nodeId, row);
  }

  /**
   * Writes the records waiting in memory, once the run row exists (a no-op before). One write at a
   * time: completions that arrive during a write go out together in the next, in completion order.
   */
  flush(): Promise<void> {
    const persisted = this.runPersisted();
    if (!persisted || this.pending.size === 0 || this.isFlushQueued) return this.flushing;
    this.isFlushQueued = true;
    this.flushing = this.flushing.then(async () => {
      let rows: NodeRunValues[] = [];
      try {
        await persisted;
        this.isFlushQueued = false;
        rows = this.takePending();
        await saveNodeRuns(this.deps.db, rows);
      } catch (error) {
        this.isFlushQueued = false;
        // Kept for the run's last write, which records whatever is still pending.
        for (const row of rows) if (!this.pending.has(row.nodeId)) this.pending.set(row.nodeId, row);
        this.deps.logger.error({ err: error, run_id: this.runId }, "node records not written");
      }
    });
    return this.flushing;
  }

  /** Resolves once every write started so far is done. */
  flushed(): Promise<void> {
    return this.flushing;
  }
}

export function runFinishedData(result: RunResult): Record<string, unknown> {
  return {
    run_id: result.run_id,
    status: result.status,
    outputs: result.outputs,
    error: result.error,
    steps: result.steps,
    elapsed_ms: Math.round(result.elapsed_ms * 100) / 100,
    usage: result.usage,
    ...(result.status === "waiting" ? { pending: result.pending.map(pendingJson) } : {}),
  };
}

/**
 * The outcomes a run recorded that a resumed execution or a replay keeps, by node id: succeeded
 * nodes, and failed ones whose outputs let the run go on.
 *
 * @example const recorded = recordedNodes(await findNodeRuns(db, run.id));
 */
export function recordedNodes(rows: NodeRunRow[]): Map<string, RecordedNode> {
  const recorded = new Map<string, RecordedNode>();
  for (const row of rows) {
    if (row.status !== "succeeded" && row.status !== "failed") continue;
    if (row.outputs === null) continue;
    recorded.set(row.nodeId, {
      status: row.status,
      started_at: row.startedAt,
      finished_at: row.finishedAt,
      elapsed_ms: row.elapsedMs,
      inputs: row.inputs,
      outputs: row.outputs,
      usage:
        row.inputTokens + row.outputTokens > 0
          ? {
              input_tokens: row.inputTokens,
              output_tokens: row.outputTokens,
              total_tokens: row.inputTokens + row.outputTokens,
            }
          : null,
      error: row.error,
      logs: row.logs,
      attempts:
        row.attempts?.map((attempt) => ({ ...attempt, started_at: new Date(attempt.started_at) })) ?? null,
    });
  }
  return recorded;
}
