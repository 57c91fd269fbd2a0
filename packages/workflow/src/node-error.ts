/** What a node's program printed (a Code node's stdout and stderr), kept with its run record. */
export interface NodeLogs {
  stdout: string;
  stderr: string;
  /** The executor or the sandbox cut them to their size limit. */
  truncated: boolean;
}

/** The error a node reports in its run record and `node_finished` event. */
export interface NodeError {
  /** snake_case, e.g. `node_timeout`, `missing_value`, or the code an executor chose. */
  code: string;
  message: string;
}

/**
 * Thrown by executors (and the built-in nodes) to fail a node with a specific code; any other thrown
 * error is reported as `executor_failed` with its message.
 *
 * @example throw new NodeExecutionError("output_type_mismatch", "Output total must be a number, got string.");
 */
export class NodeExecutionError extends Error {
  override name = "NodeExecutionError";
  readonly code: string;
  /** What the node's program printed before it failed; recorded with the failure. */
  readonly logs: NodeLogs | undefined;
  /** How long the other side asked to wait before trying again (a 429/5xx answer's Retry-After). */
  readonly retryAfterMs: number | undefined;

  constructor(code: string, message: string, options: { logs?: NodeLogs; retryAfterMs?: number } = {}) {
    super(message);
    this.code = code;
    this.logs = options.logs;
    this.retryAfterMs = options.retryAfterMs;
  }
}

/**
 * The `{ code, message }` of anything a node threw.
 *
 * @example toNodeError(new Error("boom")) // { code: "executor_failed", message: "boom" }
 */
export function toNodeError(error: unknown): NodeError {
  if (error instanceof NodeExecutionError) return { code: error.code, message: error.message };
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    // Library errors often carry a code (`ECONNREFUSED`, `missing_value`); keep it when it is a word.
    if (typeof code === "string" && /^[A-Za-z][A-Za-z0-9_]{0,63}$/.test(code)) {
      return { code, message: error.message };
    }
    return { code: "executor_failed", message: error.message };
  }
  return { code: "executor_failed", message: String(error) };
}
