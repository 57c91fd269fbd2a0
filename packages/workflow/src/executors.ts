import type { NodeLogs } from "./node-error.ts";
import type { NodeInputsByType } from "./node-inputs.ts";
import type { ExecutedNodeType, NodeOfType } from "./schema.ts";

/** Tokens a node consumed; summed into the run's usage. */
export interface TokenUsage {
  input_tokens?: number;
  output_tokens?: number;
  total_tokens: number;
}

export interface ExecutorContext<T extends ExecutedNodeType> {
  node: NodeOfType<T>;
  /** The node's `data` with templates resolved; treat as read-only. */
  inputs: NodeInputsByType[T];
  /** Aborted on the node's timeout, the run's time limit, cancellation, or another node failing the run. */
  signal: AbortSignal;
  runId: string;
  /** 1 for the first attempt, then 2, 3… under the node's `retry`. */
  attempt: number;
  /** The attempts the node may make; an executor may answer differently on its last one. */
  maxAttempts: number;
}

export interface ExecutorResult {
  outputs: Record<string, unknown>;
  usage?: TokenUsage;
  logs?: NodeLogs;
}

/**
 * Does the work of one node type (call a model, run code, send a request, call a tool). Throw
 * `NodeExecutionError` to fail the node with a specific code.
 *
 * @example const llm: NodeExecutor<"llm"> = async ({ inputs, signal }) => ({ outputs: { text: await ask(inputs.prompt, signal), usage } });
 */
export type NodeExecutor<T extends ExecutedNodeType> = (
  context: ExecutorContext<T>,
) => Promise<ExecutorResult>;

/** One executor per caller-supplied node type; start, end and condition nodes run inside the engine. */
export type NodeExecutors = { [T in ExecutedNodeType]: NodeExecutor<T> };
