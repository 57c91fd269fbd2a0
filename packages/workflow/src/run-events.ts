import type { TokenUsage } from "./executors.ts";
import type { NodeError, NodeLogs } from "./node-error.ts";
import type { NodeAttempt } from "./retry.ts";
import type { NodeType } from "./schema.ts";

/** `waiting`: the run paused at nodes that need a person's approval (`pending`); it goes on once decided. */
export type RunStatus = "succeeded" | "failed" | "cancelled" | "waiting";

/** A node the run paused at, waiting for a person to approve or reject its request. */
export interface PendingApproval {
  node_id: string;
  node_type: NodeType;
  title?: string;
  step: number;
  /** The node's resolved request: what it would send if approved as it is. */
  input: unknown;
  requested_at: Date;
  /** When the node's `on_timeout` decides (`approval_timeout_s` after `requested_at`); null without one. */
  expires_at: Date | null;
  on_timeout: "reject" | "fail";
}

/**
 * A person's decision on a node that requires approval, passed to the run that goes on after it.
 * `approve` runs the node, with `input` instead of its resolved request when given; `reject` fails it
 * with `approval_rejected` (no retry), under its `on_error`.
 */
export type ApprovalDecision =
  | { decision: "approve"; input?: unknown }
  | { decision: "reject"; message?: string };

/** Why a run did not succeed; `node_id` names the node at fault when there is one. */
export interface RunError {
  /** `invalid_inputs`, `step_limit_exceeded`, `run_timeout`, `run_cancelled`, or the failed node's code. */
  code: string;
  message: string;
  node_id?: string;
}

interface NodeEventBase {
  run_id: string;
  node_id: string;
  node_type: NodeType;
  title?: string;
}

export interface RunStartedEvent {
  run_id: string;
  started_at: Date;
  /** The inputs as the caller supplied them (defaults are applied by the start node). */
  inputs: Record<string, unknown>;
}

export interface NodeStartedEvent extends NodeEventBase {
  /** 1, 2, 3… in the order nodes started. */
  step: number;
  started_at: Date;
  /** The node's data with templates resolved (the start node: the run inputs); null when resolving failed. */
  inputs: unknown;
}

interface NodeEndedBase extends NodeEventBase {
  step: number;
  started_at: Date;
  finished_at: Date;
  elapsed_ms: number;
  inputs: unknown;
  /** Each attempt with its error, for a node under a retry policy; null otherwise. */
  attempts: NodeAttempt[] | null;
  /** The outcome was recorded by an earlier execution (a resumed or replayed run): the node did not run again. */
  reused: boolean;
}

export interface NodeFinishedEvent extends NodeEndedBase {
  status: "succeeded";
  outputs: Record<string, unknown>;
  usage?: TokenUsage;
  /** What the node's program printed (Code nodes); absent for nodes that print nothing. */
  logs?: NodeLogs;
}

export interface NodeFailedEvent extends NodeEndedBase {
  status: "failed";
  error: NodeError;
  /**
   * True when `on_error: "continue"` let the run go on with `outputs` (the default output plus `error`),
   * or `on_error: "branch"` took the node's error edges (outputs `{ error }`).
   */
  continued: boolean;
  outputs: Record<string, unknown> | null;
  logs?: NodeLogs;
}

/** A node that requires approval was reached without a decision: the run pauses there. */
export interface NodeWaitingEvent extends NodeEventBase {
  step: number;
  requested_at: Date;
  /** The node's resolved request (its data with templates resolved). */
  inputs: unknown;
}

export interface NodeSkippedEvent extends NodeEventBase {
  skipped_at: Date;
}

export interface RunFinishedEvent {
  run_id: string;
  status: RunStatus;
  started_at: Date;
  finished_at: Date;
  elapsed_ms: number;
  /** How many nodes started. */
  steps: number;
  /** The outputs of the end nodes that ran, merged in graph order; null unless the run succeeded. */
  outputs: Record<string, unknown> | null;
  error: RunError | null;
  usage: TokenUsage;
  /** The nodes awaiting approval when `status` is `waiting`; empty otherwise. */
  pending: PendingApproval[];
}

/**
 * Receives a run's progress, e.g. to store run records and stream Server-Sent Events. Calls arrive one
 * at a time in order (an async method is awaited before the next call); if one throws, the run is
 * aborted and `runWorkflow` rejects with that error. `onNodeFailed` is a node that finished with status
 * `failed`; streams report it as `node_finished`.
 */
export interface RunRecorder {
  onRunStarted?(event: RunStartedEvent): void | Promise<void>;
  onNodeStarted?(event: NodeStartedEvent): void | Promise<void>;
  onNodeFinished?(event: NodeFinishedEvent): void | Promise<void>;
  onNodeFailed?(event: NodeFailedEvent): void | Promise<void>;
  onNodeSkipped?(event: NodeSkippedEvent): void | Promise<void>;
  /** Sent when the run ends `waiting`, once per paused node, before `onRunFinished`. */
  onNodeWaiting?(event: NodeWaitingEvent): void | Promise<void>;
  onRunFinished?(event: RunFinishedEvent): void | Promise<void>;
}

/** A node as the finished run saw it, for the stored run record and blocking answers. */
export interface NodeRunRecord {
  node_id: string;
  node_type: NodeType;
  title?: string;
  status: "succeeded" | "failed" | "skipped";
  step: number | null;
  started_at: Date | null;
  finished_at: Date | null;
  elapsed_ms: number | null;
  inputs: unknown;
  outputs: Record<string, unknown> | null;
  usage: TokenUsage | null;
  error: NodeError | null;
  continued: boolean;
  logs: NodeLogs | null;
  attempts: NodeAttempt[] | null;
}

/**
 * A node whose outcome an earlier execution of the run recorded: a succeeded node, or a failed one
 * that let the run go on (`on_error` continue or branch, so `outputs` is set).
 */
export type RecordedNode = Pick<
  NodeRunRecord,
  | "status"
  | "started_at"
  | "finished_at"
  | "elapsed_ms"
  | "inputs"
  | "outputs"
  | "usage"
  | "error"
  | "logs"
  | "attempts"
>;

/**
 * What `runWorkflow` resolves with: the run's final event plus a record of every node that ran or was
 * skipped, in the order they finished or were skipped (nodes never reached have none).
 */
export interface RunResult extends RunFinishedEvent {
  nodes: NodeRunRecord[];
}
