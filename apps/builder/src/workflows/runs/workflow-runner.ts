import { newId } from "@app/core";
import { annotateSpan, withSpan } from "@app/observability";
import {
  type CompiledWorkflow,
  compileWorkflow,
  type NodeExecutors,
  type NodeFailedEvent,
  type NodeFinishedEvent,
  type RunRecorder,
  type RunResult,
  runWorkflow,
  type ToolOutputs,
  WorkflowGraphError,
} from "@app/workflow";
import type { Deps } from "../../deps.ts";
import type { RunTrigger, WorkflowRow } from "../schema.ts";
import type { ToolRegistry } from "../tools/registry.ts";
import {
  failInterruptedRuns,
  heartbeat,
  insertRuns,
  type NewRun,
  type NodeRunValues,
  recordRunEnd,
  saveNodeRuns,
} from "./run-store.ts";

/** A Server-Sent Event of a run, as the API streams it. */
export interface RunStreamEvent {
  event: "run_started" | "node_started" | "node_finished" | "node_skipped" | "run_finished";
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
  /** A run row already written in `running` (a schedule's tick, claimed with it): executed, not inserted. */
  claimed?: ClaimedRun;
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
/** A run whose process has not said anything for this long is considered dead. */
const STALE_AFTER_MS = 60_000;
/** Node records of a long run are written at most this often, so GET /api/runs/{id} shows progress. */
const FLUSH_EVERY_MS = 1_000;
/** A run still going after this long gets its row written, so a crash cannot make it vanish. */
const PERSIST_AFTER_MS = 100;
const COMPILED_CACHE_SIZE = 500;

/**
 * Executes workflows and records their runs: one run row at start, node records batched (a fast run
 * writes them once, with its end), a heartbeat while it runs, and cancellation from any process.
 */
export class WorkflowRunner {
  private readonly active = new Map<string, AbortController>();
  private readonly compiled = new Map<string, CompiledWorkflow>();
  private timer: NodeJS.Timeout | undefined;

  readonly tools: ToolRegistry;

  constructor(
    private readonly deps: Deps,
    private readonly services: NodeServices,
  ) {
    this.tools = services.tools;
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
    };
    let compiled: CompiledWorkflow;
    try {
      compiled = this.compile(request.workflow, request.version);
    } catch (error) {
      // Other triggers refuse before a run exists (checkRunnable); a claimed tick's run is on record
      // already and must end, with the reason.
      if (!claimed || !(error instanceof WorkflowGraphError)) throw error;
      return this.failClaimed(row, { code: error.code, message: error.message });
    }
    let persisted: Promise<void> | undefined = claimed ? Promise.resolve() : undefined;
    const persist = () => {
      persisted ??= insertRuns(db, [row]);
      return persisted;
    };
    let timer: NodeJS.Timeout | undefined;
    if (request.persistAtStart) {
      await persist();
      request.onRunCreated?.(runId);
    } else if (!claimed) {
      timer = setTimeout(() => {
        void persist().catch((error: unknown) =>
          this.deps.logger.error({ err: error, run_id: runId }, "run record failed"),
        );
      }, PERSIST_AFTER_MS);
    }
    const controller = new AbortController();
    this.active.set(runId, controller);
    const recorder = new BatchingRecorder(
      this.deps,
      runId,
      request.workflow.id,
      request.onEvent,
      () => persisted,
    );
    const nodes = this.services.executors(request.workspaceId, request.depth ?? 0);
    try {
      const result = await withSpan(
        "workflow.run",
        { "run.id": runId, "workspace.id": request.workspaceId, "workflow.id": request.workflow.id },
        () =>
          runWorkflow({
            workflow: compiled,
            runId,
            inputs: request.inputs,
            executors: nodes.executors,
            recorder,
            clock,
            signal: controller.signal,
            missingValues: "empty",
          }),
      );
      clearTimeout(timer);
      if (persisted) await persisted;
      const deliveries = await recordRunEnd(this.deps, row, result, recorder.takePending(), {
        rowExists: persisted !== undefined,
      });
      // A wake costs the engine a query; most workspaces have no webhook listening.
      if (deliveries > 0) this.deps.deliveries?.wake();
      request.onEvent?.({ event: "run_finished", data: runFinishedData(result) });
      return result;
    } finally {
      nodes.close();
      clearTimeout(timer);
      recorder.close();
      this.active.delete(runId);
    }
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
      nodes: [],
    };
    const deliveries = await recordRunEnd(this.deps, row, result, [], { rowExists: true });
    if (deliveries > 0) this.deps.deliveries?.wake();
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
    await this.sweep(this.deps.isSoleProcess ? 0 : STALE_AFTER_MS);
    this.timer = setInterval(() => {
      void this.tick().catch((error: unknown) =>
        this.deps.logger.error({ err: error }, "workflow heartbeat failed"),
      );
    }, HEARTBEAT_MS);
    this.timer.unref();
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

  /** Fails the runs that have been silent (no heartbeat) for `silentForMs` or longer. */
  private async sweep(silentForMs = STALE_AFTER_MS): Promise<void> {
    const now = this.deps.clock.now();
    const closed = await failInterruptedRuns(this.deps, new Date(now.getTime() - silentForMs));
    if (closed === 0) return;
    this.deps.logger.warn({ runs: closed }, "marked interrupted workflow runs as failed");
    this.deps.deliveries?.wake();
  }
}

/** Streams every event at once and keeps node records in memory until the next flush. */
class BatchingRecorder implements RunRecorder {
  private readonly pending = new Map<string, NodeRunValues>();
  private lastFlush: number;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly deps: Deps,
    private readonly runId: string,
    private readonly workflowId: string,
    private readonly emit: ((event: RunStreamEvent) => void) | undefined,
    /** The run row's write, once started; node records wait for it (they reference the row). */
    private readonly runPersisted: () => Promise<void> | undefined,
  ) {
    this.lastFlush = deps.clock.now().getTime();
  }

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

  private ended(event: NodeFinishedEvent | NodeFailedEvent): Promise<void> {
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
        ...(event.status === "failed" ? { continued: event.continued } : {}),
      },
    });
    return this.maybeFlush();
  }

  private track(row: NodeRunValues): void {
    this.pending.set(row.nodeId, row);
  }

  private maybeFlush(): Promise<void> {
    const now = this.deps.clock.now().getTime();
    const persisted = this.runPersisted();
    if (!persisted || now - this.lastFlush < FLUSH_EVERY_MS) return Promise.resolve();
    this.lastFlush = now;
    const rows = this.takePending();
    this.flushing = this.flushing.then(() => persisted).then(() => saveNodeRuns(this.deps.db, rows));
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
  };
}
