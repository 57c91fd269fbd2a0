import type { NodeError } from "./node-error.ts";
import type { RetryPolicy, WorkflowNode } from "./schema.ts";

/** The delay of an HTTP node's deprecated `data.retries`, kept so stored graphs behave as before. */
const LEGACY_HTTP_RETRY: Omit<RetryPolicy, "max_attempts"> = {
  backoff: "exponential",
  initial_ms: 250,
  max_ms: 60_000,
};

/** One attempt of a node, as its run records it. */
export interface NodeAttempt {
  /** 1, 2, 3… */
  attempt: number;
  /** Null for the attempt that succeeded. */
  error: NodeError | null;
  started_at: Date;
  elapsed_ms: number;
}

/**
 * The retry policy a node runs under: its `retry`, else an HTTP node's deprecated `data.retries`;
 * undefined when it is tried once.
 *
 * @example retryPolicyOf({ ...httpNode, data: { ...httpNode.data, retries: 2 } }) // { max_attempts: 3, backoff: "exponential", initial_ms: 250, max_ms: 60000 }
 */
export function retryPolicyOf(node: WorkflowNode): RetryPolicy | undefined {
  if (node.type !== "llm" && node.type !== "code" && node.type !== "http" && node.type !== "tool") {
    return undefined;
  }
  if (node.retry !== undefined) return node.retry;
  if (node.type === "http" && node.data.retries !== undefined && node.data.retries > 0) {
    return { ...LEGACY_HTTP_RETRY, max_attempts: node.data.retries + 1 };
  }
  return undefined;
}

/**
 * How long to wait after failed attempt `attempt` (1-based) before the next: the server's
 * Retry-After when it gave one, else the policy's backoff; never more than `max_ms`.
 *
 * @example retryDelayMs({ max_attempts: 5, backoff: "exponential", initial_ms: 100, max_ms: 1_000 }, 3) // 400
 */
export function retryDelayMs(policy: RetryPolicy, attempt: number, retryAfterMs?: number): number {
  const backoff =
    policy.backoff === "fixed" ? policy.initial_ms : policy.initial_ms * 2 ** Math.max(0, attempt - 1);
  return Math.max(0, Math.min(retryAfterMs ?? backoff, policy.max_ms));
}

/**
 * A `Retry-After` header's wait in milliseconds: delay-seconds, or an HTTP date measured from `now`;
 * undefined when absent or unreadable.
 *
 * @example parseRetryAfter("2", new Date()) // 2000
 */
export function parseRetryAfter(value: string | null | undefined, now: Date): number | undefined {
  if (value === null || value === undefined || value.trim() === "") return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const date = Date.parse(trimmed);
  if (!Number.isFinite(date)) return undefined;
  return Math.max(0, date - now.getTime());
}
