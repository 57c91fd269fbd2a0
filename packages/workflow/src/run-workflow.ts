import { setTimeout as sleepFor } from "node:timers/promises";
import { type Clock, systemClock, toStorable } from "@app/core";
import type { CompiledWorkflow } from "./compile-workflow.ts";
import { selectCase } from "./condition.ts";
import { checkExecutorResult } from "./executor-result.ts";
import type { ExecutorResult, NodeExecutors, TokenUsage } from "./executors.ts";
import { NodeExecutionError, type NodeLogs, toNodeError } from "./node-error.ts";
import { type NodeInputsByType, resolveNodeInputs } from "./node-inputs.ts";
import { type RunStop, withNodeLimits } from "./node-limits.ts";
import { ERROR_OUTPUT_FIELD } from "./node-outputs.ts";
import { orderedDelivery } from "./ordered-delivery.ts";
import { type NodeAttempt, retryDelayMs, retryPolicyOf } from "./retry.ts";
import type {
  ApprovalDecision,
  NodeRunRecord,
  PendingApproval,
  RecordedNode,
  RunError,
  RunFinishedEvent,
  RunRecorder,
  RunResult,
  RunStatus,
} from "./run-events.ts";
import {
  ERROR_HANDLE,
  type ExecutedNodeType,
  type NodeOfType,
  type NodeType,
  type WorkflowEdge,
  type WorkflowNode,
} from "./schema.ts";
import { resolveStartInputs } from "./start-inputs.ts";
import type { ResolveOptions } from "./template.ts";

export interface RunLimits {
  /** Nodes that may start in one run (skipped nodes do not count). */
  maxSteps?: number;
  /** Wall time of the whole run. */
  timeoutMs?: number;
  /** Time limit of a node that sets no `timeout_ms` of its own. */
  nodeTimeoutMs?: number;
}

/** The limits a run gets unless the caller passes others (the step and time limits follow Dify's). */
export const DEFAULT_RUN_LIMITS: Readonly<Required<RunLimits>> = Object.freeze({
  maxSteps: 500,
  timeoutMs: 1_200_000,
  nodeTimeoutMs: 300_000,
});

export interface RunWorkflowOptions {
  workflow: CompiledWorkflow;
  /** The id the caller stored the run under; passed to executors and every event. */
  runId: string;
  /** The run's inputs as received; the start node checks them and applies defaults. */
  inputs: Record<string, unknown>;
  executors: NodeExecutors;
  recorder?: RunRecorder;
  clock?: Clock;
  /** Aborting it cancels the run: running executors see their signal abort and the run ends `cancelled`. */
  signal?: AbortSignal;
  limits?: RunLimits;
  /**
   * A reference to a path the referenced node did not output fails the node ("error", the default) or
   * resolves empty. References to skipped nodes always resolve empty, so joins can read either branch.
   */
  missingValues?: "error" | "empty";
  /**
   * Waits between the attempts of a node under `retry` and rejects when `signal` aborts (the run
   * stopping); a timer by default. Tests pass one that moves a manual clock.
   */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /**
   * Outcomes an earlier execution of this run recorded (a run resumed after its process died, or the
   * nodes a replay keeps), by node id. Such a node is not executed again: when the run reaches it, its
   * recorded outputs feed the nodes after it. Only succeeded nodes and failed ones that let the run go
   * on (`on_error` continue or branch) are reused; any other node runs.
   */
  recorded?: ReadonlyMap<string, RecordedNode>;
  /**
   * Decisions on nodes that require approval, by node id. Such a node reached without one pauses the
   * run: it is not executed, nothing after it runs, and once everything else has settled the run ends
   * `waiting` with the node in `pending`. A recorded outcome wins over a decision (the node ran).
   */
  approvals?: ReadonlyMap<string, ApprovalDecision>;
}

/**
 * Runs a compiled workflow to the end: independent branches concurrently, only the chosen case of each
 * condition (the other branches are skipped), joins once every branch that was taken has finished.
 * Resolves with the run record; rejects only when the recorder throws.
 *
 * @example const run = await runWorkflow({ workflow, runId: "run_1", inputs: { q: "hi" }, executors, recorder });
 */
export function runWorkflow(options: RunWorkflowOptions): Promise<RunResult> {
  return new WorkflowRun(options).execute();
}

/** What a node produced: its outputs, tokens, printed logs and, for a condition, the case taken. */
type NodeOutcome = { outputs: Record<string, unknown>; usage?: TokenUsage; logs?: NodeLogs; handle?: string };

/** What is known of a node once it has finished, successfully or not. */
interface EndedNode {
  node: WorkflowNode;
  step: number;
  started_at: Date;
  finished_at: Date;
  elapsed_ms: number;
  inputs: unknown;
}

/** A node paired with its resolved inputs, typed together so each case sees the right input shape. */
type PreparedNode = {
  [T in NodeType]: { type: T; node: NodeOfType<T>; inputs: NodeInputsByType[T] };
}[NodeType];

class WorkflowRun {
  private readonly clock: Clock;
  private readonly limits: Required<RunLimits>;
  private readonly running: RunStop = { reason: undefined, hooks: new Set() };
  private readonly delivery = orderedDelivery((error) =>
    this.stop("failed", { code: "recorder_failed", message: `The run recorder failed: ${messageOf(error)}` }),
  );
  // No prototype: node ids such as `__proto__` must stay ordinary keys.
  private readonly scope: Record<string, Record<string, unknown>> = Object.create(null);
  private readonly skipped = new Set<string>();
  private readonly waiting = new Map<string, { unresolved: number; hasTaken: boolean }>();
  private readonly records = new Map<string, NodeRunRecord>();
  /** Attempts of the nodes under a retry policy (nodes tried once allocate nothing). */
  private readonly attempts = new Map<string, NodeAttempt[]>();
  private readonly resolveOptions: ResolveOptions;
  private readonly usage = { input_tokens: 0, output_tokens: 0, total_tokens: 0 };
  /** Nodes reached that wait for a person's approval, in the order they were reached. */
  private readonly paused = new Map<string, PendingApproval>();
  private steps = 0;
  private inFlight = 0;
  private outcome: { status: RunStatus; error: RunError } | undefined;
  private settle: () => void = () => {};

  constructor(private readonly options: RunWorkflowOptions) {
    this.clock = options.clock ?? systemClock;
    this.limits = { ...DEFAULT_RUN_LIMITS, ...options.limits };
    this.resolveOptions = { missing: options.missingValues ?? "error", optionalNodes: this.skipped };
  }

  async execute(): Promise<RunResult> {
    const { runId, signal } = this.options;
    const startedAt = this.clock.now();
    this.emit("onRunStarted", () => ({ run_id: runId, started_at: startedAt, inputs: this.options.inputs }));
    const settled = new Promise<void>((resolve) => {
      this.settle = resolve;
    });
    const cancel = () => this.stop("cancelled", { code: "run_cancelled", message: "The run was cancelled." });
    const timer = setTimeout(() => {
      this.stop("failed", {
        code: "run_timeout",
        message: `The run did not finish within ${this.limits.timeoutMs} ms.`,
      });
    }, this.limits.timeoutMs);
    signal?.addEventListener("abort", cancel, { once: true });
    if (signal?.aborted) cancel();
    else this.schedule(this.options.workflow.start);
    if (this.inFlight > 0) await settled;
    clearTimeout(timer);
    signal?.removeEventListener("abort", cancel);

    const finished = this.finishedEvent(startedAt);
    for (const pending of finished.pending) {
      this.emit("onNodeWaiting", () => ({
        run_id: runId,
        node_id: pending.node_id,
        node_type: pending.node_type,
        ...(pending.title === undefined ? {} : { title: pending.title }),
        step: pending.step,
        requested_at: pending.requested_at,
        inputs: pending.input,
      }));
    }
    this.emit("onRunFinished", () => finished);
    await this.delivery.drained();
    const failure = this.delivery.failure();
    if (failure !== undefined) throw failure.error;
    return { ...finished, nodes: [...this.records.values()] };
  }

  private schedule(node: WorkflowNode): void {
    if (this.outcome !== undefined) return;
    if (this.steps >= this.limits.maxSteps) {
      this.stop("failed", {
        code: "step_limit_exceeded",
        message: `The run reached its limit of ${this.limits.maxSteps} steps before node ${node.id}.`,
        node_id: node.id,
      });
      return;
    }
    this.steps += 1;
    const recorded = this.options.recorded?.get(node.id);
    if (recorded !== undefined && isReusable(node, recorded)) {
      this.reuse(node, this.steps, recorded);
      return;
    }
    this.inFlight += 1;
    this.runNode(node, this.steps).catch((error: unknown) => {
      this.stop("failed", {
        code: "internal_error",
        message: `The engine failed: ${messageOf(error)}`,
        node_id: node.id,
      });
    });
  }

  // Every outcome of a node becomes an event and a record. Events are built as plain literals of one
  // shape each: object spreads here were the largest cost in profiles of the engine.
  private async runNode(node: WorkflowNode, step: number): Promise<void> {
    const { runId } = this.options;
    const startedAt = this.clock.now();
    let prepared: PreparedNode | undefined;
    let failure: { error: unknown } | undefined;
    try {
      prepared = this.prepare(node);
    } catch (error) {
      failure = { error };
    }
    if (prepared !== undefined && requiresApproval(node)) {
      const decision = this.options.approvals?.get(node.id);
      if (decision === undefined) {
        this.pause(node, step, startedAt, prepared.inputs);
        return;
      }
      if (decision.decision === "reject") {
        failure = {
          error: new NodeExecutionError(
            "approval_rejected",
            decision.message ?? `The request of node ${node.id} was rejected.`,
          ),
        };
      } else if (decision.input !== undefined) {
        // The person's edited request runs instead of the one the templates resolved to.
        prepared = { ...prepared, inputs: decision.input } as PreparedNode;
      }
    }
    const inputs = prepared?.inputs ?? null;
    this.emit("onNodeStarted", () => ({
      run_id: runId,
      node_id: node.id,
      node_type: node.type,
      title: node.data.title,
      step,
      started_at: startedAt,
      inputs,
    }));
    let result: NodeOutcome | undefined;
    if (prepared !== undefined && failure === undefined) {
      try {
        result = await this.perform(prepared);
      } catch (error) {
        failure = { error };
      }
    }
    const finishedAt = this.clock.now();
    const ended: EndedNode = {
      node,
      step,
      started_at: startedAt,
      finished_at: finishedAt,
      elapsed_ms: finishedAt.getTime() - startedAt.getTime(),
      inputs,
    };
    try {
      if (result !== undefined) this.succeed(ended, result);
      else this.fail(ended, failure?.error);
    } finally {
      // Even if bookkeeping throws, the run must still settle rather than wait forever.
      this.inFlight -= 1;
      if (this.inFlight === 0) this.settle();
    }
  }

  /**
   * A node waiting for approval: nothing after it is scheduled, and it is reported (as `pending` and
   * `onNodeWaiting`) only if the run ends waiting; a run that fails or is cancelled meanwhile never
   * reached it.
   */
  private pause(node: WorkflowNode, step: number, requestedAt: Date, inputs: unknown): void {
    this.paused.set(node.id, {
      node_id: node.id,
      node_type: node.type,
      ...(node.data.title === undefined ? {} : { title: node.data.title }),
      step,
      input: inputs,
      requested_at: requestedAt,
      expires_at: approvalDeadline(node, requestedAt),
      on_timeout: "on_timeout" in node && node.on_timeout === "fail" ? "fail" : "reject",
    });
    this.inFlight -= 1;
    if (this.inFlight === 0) this.settle();
  }

  private succeed(ended: EndedNode, result: NodeOutcome): void {
    const { node, step, started_at, finished_at, elapsed_ms, inputs } = ended;
    const { outputs, usage, logs } = result;
    this.addUsage(usage);
    this.records.set(node.id, {
      node_id: node.id,
      node_type: node.type,
      title: node.data.title,
      status: "succeeded",
      step,
      started_at,
      finished_at,
      elapsed_ms,
      inputs,
      outputs,
      usage: usage ?? null,
      error: null,
      continued: false,
      logs: logs ?? null,
      attempts: this.attempts.get(node.id) ?? null,
    });
    this.emit("onNodeFinished", () => ({
      run_id: this.options.runId,
      node_id: node.id,
      node_type: node.type,
      title: node.data.title,
      step,
      status: "succeeded",
      started_at,
      finished_at,
      elapsed_ms,
      inputs,
      outputs,
      usage,
      attempts: this.attempts.get(node.id) ?? null,
      reused: false,
      ...(logs === undefined ? {} : { logs }),
    }));
    this.complete(node, outputs, result.handle);
  }

  private prepare(node: WorkflowNode): PreparedNode {
    const options = this.resolveOptions;
    switch (node.type) {
      case "start":
        return { type: "start", node, inputs: this.options.inputs };
      case "end":
        return { type: "end", node, inputs: resolveNodeInputs(node, this.scope, options) };
      case "condition":
        return { type: "condition", node, inputs: resolveNodeInputs(node, this.scope, options) };
      case "llm":
        return { type: "llm", node, inputs: resolveNodeInputs(node, this.scope, options) };
      case "code":
        return { type: "code", node, inputs: resolveNodeInputs(node, this.scope, options) };
      case "http":
        return { type: "http", node, inputs: resolveNodeInputs(node, this.scope, options) };
      case "tool":
        return { type: "tool", node, inputs: resolveNodeInputs(node, this.scope, options) };
    }
  }

  private async perform(prepared: PreparedNode): Promise<NodeOutcome> {
    const { executors, runId } = this.options;
    switch (prepared.type) {
      case "start": {
        const checked = resolveStartInputs(prepared.node.data, prepared.inputs);
        if (checked.ok) return { outputs: checked.values };
        const problems = checked.issues.map((issue) => issue.message).join(" ");
        throw new NodeExecutionError("invalid_inputs", `The run inputs are invalid. ${problems}`);
      }
      case "end":
        return {
          outputs: Object.fromEntries(prepared.inputs.outputs.map((output) => [output.name, output.value])),
        };
      case "condition": {
        const handle = selectCase(prepared.inputs.cases);
        return { outputs: { matched_case: handle }, handle };
      }
      case "llm": {
        const { node, inputs } = prepared;
        return this.callExecutor(node, (signal, attempt, maxAttempts) =>
          executors.llm({ node, inputs, signal, runId, attempt, maxAttempts }),
        );
      }
      case "code": {
        const { node, inputs } = prepared;
        return this.callExecutor(node, (signal, attempt, maxAttempts) =>
          executors.code({ node, inputs, signal, runId, attempt, maxAttempts }),
        );
      }
      case "http": {
        const { node, inputs } = prepared;
        return this.callExecutor(node, (signal, attempt, maxAttempts) =>
          executors.http({ node, inputs, signal, runId, attempt, maxAttempts }),
        );
      }
      case "tool": {
        const { node, inputs } = prepared;
        return this.callExecutor(node, (signal, attempt, maxAttempts) =>
          executors.tool({ node, inputs, signal, runId, attempt, maxAttempts }),
        );
      }
    }
  }

  /**
   * Calls a node's executor, again after a delay while it fails under a retry policy. `timeout_ms`
   * limits each attempt; the run's own limits and cancellation end the waits too.
   */
  private async callExecutor(
    node: NodeOfType<ExecutedNodeType>,
    call: (signal: AbortSignal, attempt: number, maxAttempts: number) => Promise<ExecutorResult>,
  ): Promise<ExecutorResult> {
    const policy = retryPolicyOf(node);
    if (policy === undefined) return this.attempt(node, (signal) => call(signal, 1, 1));
    const attempts: NodeAttempt[] = [];
    this.attempts.set(node.id, attempts);
    for (let attempt = 1; ; attempt += 1) {
      const startedAt = this.clock.now();
      const elapsed = () => this.clock.now().getTime() - startedAt.getTime();
      try {
        const result = await this.attempt(node, (signal) => call(signal, attempt, policy.max_attempts));
        attempts.push({ attempt, error: null, started_at: startedAt, elapsed_ms: elapsed() });
        return result;
      } catch (error) {
        attempts.push({
          attempt,
          error: toStorable(toNodeError(error)),
          started_at: startedAt,
          elapsed_ms: elapsed(),
        });
        const isRunStop = this.running.reason !== undefined && error === this.running.reason;
        if (isRunStop || attempt >= policy.max_attempts) throw error;
        const retryAfterMs = error instanceof NodeExecutionError ? error.retryAfterMs : undefined;
        await this.wait(retryDelayMs(policy, attempt, retryAfterMs));
      }
    }
  }

  /** Waits before a retry; the run stopping ends the wait with the run's reason. */
  private async wait(ms: number): Promise<void> {
    if (this.running.reason !== undefined) throw this.running.reason;
    const controller = new AbortController();
    const stop = (reason: unknown) => controller.abort(reason);
    this.running.hooks.add(stop);
    try {
      await (this.options.sleep ?? defaultSleep)(ms, controller.signal);
    } catch (error) {
      throw this.running.reason ?? error;
    } finally {
      this.running.hooks.delete(stop);
    }
    if (this.running.reason !== undefined) throw this.running.reason;
  }

  private async attempt(
    node: NodeOfType<ExecutedNodeType>,
    call: (signal: AbortSignal) => Promise<ExecutorResult>,
  ): Promise<ExecutorResult> {
    const timeoutMs = node.timeout_ms ?? this.limits.nodeTimeoutMs;
    const result = checkExecutorResult(node, await withNodeLimits(call, this.running, timeoutMs, node.id));
    // Outputs come from code, servers and models: made storable here, so what later nodes, the
    // answer and the stored record see is one and the same value. Printed logs likewise.
    return {
      ...result,
      outputs: toStorable(result.outputs),
      ...(result.logs === undefined ? {} : { logs: toStorable(result.logs) }),
    };
  }

  private fail(ended: EndedNode, thrown: unknown): void {
    const { node, step, started_at, finished_at, elapsed_ms, inputs } = ended;
    const error = toStorable(toNodeError(thrown));
    const logs = thrown instanceof NodeExecutionError && thrown.logs ? toStorable(thrown.logs) : undefined;
    // A node interrupted because the run is stopping did not fail on its own: no policy applies.
    const isRunStop = this.running.reason !== undefined && thrown === this.running.reason;
    const policy = !isRunStop && "on_error" in node ? node.on_error : undefined;
    const defaults = "default_output" in node ? node.default_output : undefined;
    const outputs =
      policy === "continue"
        ? { ...defaults, [ERROR_OUTPUT_FIELD]: error }
        : policy === "branch"
          ? { [ERROR_OUTPUT_FIELD]: error }
          : null;
    const continued = outputs !== null;
    this.records.set(node.id, {
      node_id: node.id,
      node_type: node.type,
      title: node.data.title,
      status: "failed",
      step,
      started_at,
      finished_at,
      elapsed_ms,
      inputs,
      outputs,
      usage: null,
      error,
      continued,
      logs: logs ?? null,
      attempts: this.attempts.get(node.id) ?? null,
    });
    this.emit("onNodeFailed", () => ({
      run_id: this.options.runId,
      node_id: node.id,
      node_type: node.type,
      title: node.data.title,
      step,
      status: "failed",
      started_at,
      finished_at,
      elapsed_ms,
      inputs,
      error,
      continued,
      outputs,
      attempts: this.attempts.get(node.id) ?? null,
      reused: false,
      ...(logs === undefined ? {} : { logs }),
    }));
    if (outputs !== null) {
      this.complete(node, outputs, policy === "branch" ? ERROR_HANDLE : undefined);
      return;
    }
    if (!isRunStop) {
      this.stop("failed", {
        code: error.code,
        message: `Node ${node.id} failed: ${error.message}`,
        node_id: node.id,
      });
    }
  }

  /**
   * Passes a node's outputs on. Out of a condition only the chosen case's edges are taken; out of
   * any other node the error edges are taken when it failed under `on_error: "branch"` (`handle` is
   * `error`), its other edges otherwise.
   */
  private complete(node: WorkflowNode, outputs: Record<string, unknown>, handle: string | undefined): void {
    this.scope[node.id] = outputs;
    if (this.outcome !== undefined) return;
    const isCondition = node.type === "condition";
    const isFailedBranch = handle === ERROR_HANDLE;
    for (const edge of this.outgoing(node.id)) {
      const isTaken = isCondition
        ? edge.source_handle === handle
        : (edge.source_handle === ERROR_HANDLE) === isFailedBranch;
      this.resolveEdge(edge, isTaken);
    }
  }

  /** A node an earlier execution completed: its record comes back and its outputs go on, without running it. */
  private reuse(node: WorkflowNode, step: number, recorded: RecordedNode): void {
    const outputs = recorded.outputs ?? {};
    const now = this.clock.now();
    const started_at = recorded.started_at ?? now;
    const finished_at = recorded.finished_at ?? now;
    const elapsed_ms = recorded.elapsed_ms ?? 0;
    const { inputs, logs, attempts } = recorded;
    const base = {
      run_id: this.options.runId,
      node_id: node.id,
      node_type: node.type,
      title: node.data.title,
      step,
      started_at,
      finished_at,
      elapsed_ms,
      inputs,
      outputs,
      attempts,
      reused: true,
      ...(logs === null ? {} : { logs }),
    };
    const isSucceeded = recorded.status === "succeeded";
    this.records.set(node.id, {
      node_id: node.id,
      node_type: node.type,
      title: node.data.title,
      status: isSucceeded ? "succeeded" : "failed",
      step,
      started_at,
      finished_at,
      elapsed_ms,
      inputs,
      outputs,
      usage: recorded.usage,
      error: recorded.error,
      continued: !isSucceeded,
      logs,
      attempts,
    });
    if (isSucceeded) {
      this.addUsage(recorded.usage ?? undefined);
      this.emit("onNodeFinished", () => ({
        ...base,
        status: "succeeded",
        usage: recorded.usage ?? undefined,
      }));
      const handle = node.type === "condition" ? String(outputs.matched_case) : undefined;
      this.complete(node, outputs, handle);
      return;
    }
    const error = recorded.error ?? { code: "executor_failed", message: "The node failed." };
    this.emit("onNodeFailed", () => ({ ...base, status: "failed", error, continued: true }));
    const isBranch = "on_error" in node && node.on_error === "branch";
    this.complete(node, outputs, isBranch ? ERROR_HANDLE : undefined);
  }

  private resolveEdge(edge: WorkflowEdge, isTaken: boolean): void {
    const target = this.options.workflow.index.nodes.get(edge.target);
    if (target === undefined) return;
    let state = this.waiting.get(target.id);
    if (state === undefined) {
      state = {
        unresolved: this.options.workflow.index.incoming.get(target.id)?.length ?? 0,
        hasTaken: false,
      };
      this.waiting.set(target.id, state);
    }
    state.unresolved -= 1;
    if (isTaken) state.hasTaken = true;
    if (state.unresolved > 0) return;
    if (state.hasTaken) this.schedule(target);
    else this.skip(target);
  }

  private skip(node: WorkflowNode): void {
    if (this.outcome !== undefined) return;
    this.skipped.add(node.id);
    const skippedAt = this.clock.now();
    this.records.set(node.id, {
      node_id: node.id,
      node_type: node.type,
      title: node.data.title,
      status: "skipped",
      step: null,
      started_at: null,
      finished_at: null,
      elapsed_ms: null,
      inputs: null,
      outputs: null,
      usage: null,
      error: null,
      continued: false,
      logs: null,
      attempts: null,
    });
    this.emit("onNodeSkipped", () => ({
      run_id: this.options.runId,
      node_id: node.id,
      node_type: node.type,
      title: node.data.title,
      skipped_at: skippedAt,
    }));
    for (const edge of this.outgoing(node.id)) this.resolveEdge(edge, false);
  }

  private stop(status: RunStatus, error: RunError): void {
    if (this.outcome !== undefined) return;
    this.outcome = { status, error };
    const reasonCode =
      error.code === "run_cancelled" || error.code === "run_timeout" ? error.code : "run_stopped";
    const reason =
      reasonCode === "run_stopped" ? `Stopped because the run ended: ${error.message}` : error.message;
    this.running.reason = new NodeExecutionError(reasonCode, reason);
    for (const stopNode of [...this.running.hooks]) stopNode(this.running.reason);
  }

  private finishedEvent(startedAt: Date): RunFinishedEvent {
    const finishedAt = this.clock.now();
    const common = {
      run_id: this.options.runId,
      started_at: startedAt,
      finished_at: finishedAt,
      elapsed_ms: finishedAt.getTime() - startedAt.getTime(),
      steps: this.steps,
      usage: { ...this.usage },
    };
    if (this.outcome !== undefined) {
      return {
        ...common,
        status: this.outcome.status,
        outputs: null,
        error: this.outcome.error,
        pending: [],
      };
    }
    if (this.paused.size > 0) {
      return { ...common, status: "waiting", outputs: null, error: null, pending: [...this.paused.values()] };
    }
    const outputs: Record<string, unknown> = {};
    for (const node of this.options.workflow.graph.nodes) {
      if (node.type === "end" && this.records.get(node.id)?.status === "succeeded") {
        Object.assign(outputs, this.scope[node.id]);
      }
    }
    return { ...common, status: "succeeded", outputs, error: null, pending: [] };
  }

  private addUsage(usage: TokenUsage | undefined): void {
    if (usage === undefined) return;
    this.usage.input_tokens += usage.input_tokens ?? 0;
    this.usage.output_tokens += usage.output_tokens ?? 0;
    this.usage.total_tokens += usage.total_tokens;
  }

  private outgoing(nodeId: string): readonly WorkflowEdge[] {
    return this.options.workflow.index.outgoing.get(nodeId) ?? [];
  }

  /** Builds the event only when the recorder listens for it. */
  private emit<K extends keyof RunRecorder>(
    method: K,
    build: () => Parameters<NonNullable<RunRecorder[K]>>[0],
  ): void {
    const recorder = this.options.recorder;
    const listener = recorder?.[method];
    if (recorder === undefined || listener === undefined) return;
    const event = build();
    // The method is called on the recorder so class-based recorders keep their `this`.
    this.delivery.push(() => (listener as (event: unknown) => void | Promise<void>).call(recorder, event));
  }
}

/** When a node's approval requested at `requestedAt` times out; null for one that waits for ever. */
function approvalDeadline(node: WorkflowNode, requestedAt: Date): Date | null {
  const seconds = "approval_timeout_s" in node ? node.approval_timeout_s : undefined;
  return seconds === undefined ? null : new Date(requestedAt.getTime() + seconds * 1000);
}

/** Whether a node waits for a person's approval before it runs. */
function requiresApproval(node: WorkflowNode): boolean {
  return (node.type === "http" || node.type === "tool") && node.requires_approval === true;
}

/** A recorded outcome the run can go on from: a success, or a failure its node's `on_error` let through. */
function isReusable(node: WorkflowNode, recorded: RecordedNode): boolean {
  if (recorded.outputs === null) return false;
  if (recorded.status === "succeeded") return true;
  return (
    recorded.status === "failed" &&
    "on_error" in node &&
    (node.on_error === "continue" || node.on_error === "branch")
  );
}

const defaultSleep = (ms: number, signal: AbortSignal): Promise<void> => sleepFor(ms, undefined, { signal });

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
